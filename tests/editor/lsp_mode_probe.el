;;; lsp_mode_probe.el --- Emacs 28 + lsp-mode 8 (Debian) against `opal lsp', headless.
;; emacs --batch -q -l lsp_mode_probe.el EDITORS_EMACS FILE LINE COL
;; With only editors/emacs on the load path and `(require 'opal-mode)': lsp-mode finds the client
;; opal-mode registers (`opal lsp' on PATH). Diagnostics, hover, definition, completion, rename
;; and formatting; lsp-mode sends `shutdown' with `params: {}' (issue 19): the server must answer
;; it and exit 0.
;; Batch mode skips the package activation of an interactive start: `package-initialize' does it.
(package-initialize)
(require 'cl-lib)
(defun out (fmt &rest args) (princ (concat (apply #'format fmt args) "\n")))
(defun fail (fmt &rest args) (out "FAIL: %s" (apply #'format fmt args)) (kill-emacs 1))
(let* ((args command-line-args-left)
       (dir (nth 0 args)) (file (nth 1 args))
       (line (string-to-number (nth 2 args))) (col (string-to-number (nth 3 args)))
       (root (file-name-directory file)))
  (setq command-line-args-left nil)
  (add-to-list 'load-path dir)
  (require 'opal-mode)
  (require 'lsp-mode)
  ;; lsp-mode's own settings for a batch run: no session file in ~, no prompt for the project
  ;; root (the probe adds it below), none of the UI that needs a terminal.
  (setq lsp-session-file (make-temp-file "lsp-session" nil ".el") lsp-auto-guess-root nil lsp-restart 'ignore
        lsp-enable-file-watchers nil lsp-keep-workspace-alive nil lsp-enable-snippet nil
        lsp-headerline-breadcrumb-enable nil lsp-modeline-code-actions-enable nil
        lsp-modeline-diagnostics-enable nil lsp-completion-enable nil lsp-enable-on-type-formatting nil
        lsp-log-io nil lsp-response-timeout 10)
  (add-hook 'kill-emacs-hook (lambda () (ignore-errors (delete-file lsp-session-file))) 100)
  (lsp-workspace-folders-add root)
  (find-file file)
  (out "mode: %s" major-mode)
  (out "clients: %s" (mapcar #'lsp--client-server-id (lsp--find-clients)))
  (lsp)
  (with-timeout (20 (fail "lsp-mode did not initialize"))
    (while (not (and lsp--buffer-workspaces
                     (eq (lsp--workspace-status (car lsp--buffer-workspaces)) 'initialized)))
      (accept-process-output nil 0.1)))
  (let* ((ws (car lsp--buffer-workspaces))
         (proc (lsp--workspace-proc ws)))
    (out "initialized: %s" (lsp--workspace-print ws))
    (with-timeout (20 (fail "no diagnostics"))
      (while (zerop (hash-table-count (lsp-diagnostics t))) (accept-process-output nil 0.1)))
    (out "diagnostics: %d" (length (gethash file (lsp-diagnostics t))))
    (goto-char (point-min)) (forward-line line) (forward-char col)
    (let* ((hover (lsp-request "textDocument/hover" (lsp--text-document-position-params)))
           (contents (lsp-get hover :contents)))
      (out "hover kind: %s" (lsp-get contents :kind))
      (out "hover: %s" (replace-regexp-in-string "\n" "\\\\n" (or (lsp-get contents :value) ""))))
    (let* ((def (lsp-request "textDocument/definition" (lsp--text-document-position-params)))
           (def (if (vectorp def) (aref def 0) def)))
      (out "definition: %s %d" (file-name-nondirectory (lsp-get def :uri)) (lsp-get (lsp-get (lsp-get def :range) :start) :line)))
;; Completion, rename and formatting through lsp-mode's request machinery (its UIs need a
    ;; terminal; the requests and answers are the same).
    (let* ((items (lsp-request "textDocument/completion" (lsp--text-document-position-params)))
           (items (if (or (vectorp items) (listp items)) items (lsp-get items :items))))
      (out "completion: %d items" (length items)))
    (let* ((edit (lsp-request "textDocument/rename" (append (lsp--text-document-position-params) (list :newName "yell"))))
           (changes (lsp-get edit :changes))
           (n 0))
      (if (hash-table-p changes)
          (maphash (lambda (_ v) (setq n (+ n (length v)))) changes)
        (cl-loop for (_ v) on changes by #'cddr do (setq n (+ n (length v)))))
      (out "rename: %d edit(s)" n))
    (let ((edits (lsp-request "textDocument/formatting"
                              (list :textDocument (lsp--text-document-identifier) :options (list :tabSize 4 :insertSpaces t)))))
      (out "formatting: %d edit(s)" (length edits)))
    ;; lsp-mode's own shutdown (`lsp--shutdown-workspace'): `shutdown' with params {} through
    ;; its request machinery, then `exit'. It kills the process right after, so the probe sends
    ;; the same two messages and lets the server exit by itself.
    (with-lsp-workspace ws
      (out "shutdown: %S" (lsp-request "shutdown" lsp--empty-ht))
      (lsp-notify "exit" nil))
    (with-timeout (10 (fail "the server did not exit"))
      (while (process-live-p proc) (accept-process-output nil 0.1)))
    (out "exit status: %s" (process-exit-status proc)))
  (kill-emacs 0))
