;;; eglot_probe.el --- Emacs 28 + eglot 1.9 (Debian) against `opal lsp', headless.
;; emacs --batch -q -l eglot_probe.el EDITORS_EMACS FILE LINE COL
;; With only editors/emacs on the load path and `(require 'opal-mode)': FILE opens in opal-mode
;; and eglot finds `opal lsp' (on PATH) by itself. LINE/COL are 0-based (LSP coordinates) for
;; hover, definition and rename. Prints one line per check; exits 1 on a failure.
;; Batch mode skips the package activation of an interactive start: `package-initialize' does it.
(package-initialize)
(defun out (fmt &rest args) (princ (concat (apply #'format fmt args) "\n")))
(defun fail (fmt &rest args) (out "FAIL: %s" (apply #'format fmt args)) (kill-emacs 1))
(let* ((args command-line-args-left)
       (dir (nth 0 args)) (file (nth 1 args))
       (line (string-to-number (nth 2 args))) (col (string-to-number (nth 3 args)))
       (diags nil))
  (setq command-line-args-left nil)
  (add-to-list 'load-path dir)
  (require 'opal-mode)
  (require 'eglot)
  (setq eglot-sync-connect t eglot-autoshutdown nil eglot-events-buffer-size 0)
  (find-file file)
  (out "mode: %s" major-mode)
  ;; What `eglot-ensure' does from `post-command-hook', which batch mode never runs; the
  ;; project is the file's folder (no VC root: eglot's transient project).
  (let ((contact (eglot--guess-contact)))
    (out "server: %s for %s" (string-join (nth 3 contact) " ") (car contact))
    (apply #'eglot contact))
  (with-timeout (20 (fail "eglot did not connect"))
    (while (not (eglot-current-server)) (accept-process-output nil 0.1)))
  (let ((server (eglot-current-server)))
    (out "connected: %s" (eglot--project-nickname server))
    ;; Diagnostics arrive through flymake.
    (with-timeout (20 (fail "no diagnostics"))
      (while (not (setq diags (flymake-diagnostics))) (accept-process-output nil 0.1)))
    (out "diagnostics: %d" (length diags))
    (dolist (d diags) (out "  %s" (flymake-diagnostic-text d)))
    (let* ((pos (list :line line :character col))
           (params (list :textDocument (eglot--TextDocumentIdentifier) :position pos))
           (hover (jsonrpc-request server :textDocument/hover params))
           (contents (plist-get hover :contents)))
      (out "hover kind: %s" (plist-get contents :kind))
      (out "hover: %s" (replace-regexp-in-string "\n" "\\\\n" (or (plist-get contents :value) "")))
      (let* ((def (jsonrpc-request server :textDocument/definition params))
             (def (if (vectorp def) (aref def 0) def))
             (start (plist-get (plist-get def :range) :start)))
        (out "definition: %s %d:%d" (file-name-nondirectory (plist-get def :uri)) (plist-get start :line) (plist-get start :character)))
      (let* ((items (jsonrpc-request server :textDocument/completion (list :textDocument (eglot--TextDocumentIdentifier) :position (list :line 9 :character 4))))
             (items (if (vectorp items) items (plist-get items :items))))
        (out "completion: %d items, snippets: %s" (length items)
             (seq-some (lambda (i) (equal (plist-get i :insertTextFormat) 2)) items)))
      (let* ((edit (jsonrpc-request server :textDocument/rename (append params (list :newName "exclaim"))))
             (changes (plist-get edit :changes)))
        (out "rename: %d edit(s)" (length (cadr changes))))
      (let ((edits (jsonrpc-request server :textDocument/formatting
                                    (list :textDocument (eglot--TextDocumentIdentifier) :options (list :tabSize 4 :insertSpaces t)))))
        (out "formatting: %s edit(s)" (length edits))))
    ;; Orderly shutdown: eglot sends shutdown then exit and waits for the process.
    ;; eglot 1.9 sends shutdown (an error here would end the script) and exit, then deletes
    ;; the process at once: status 9 (killed) is eglot's doing, 1 would be the server's.
    (let ((proc (jsonrpc--process server)))
      (eglot-shutdown server)
      (out "shutdown: answered")
      (with-timeout (10 (fail "the server did not exit"))
        (while (process-live-p proc) (accept-process-output nil 0.1)))
      (out "exit status: %s" (process-exit-status proc))))
  (kill-emacs 0))
