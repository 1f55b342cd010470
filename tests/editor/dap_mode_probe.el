;;; dap_mode_probe.el --- Emacs 28 + dap-mode 0.7 (Debian) against `opal dap', headless.
;; emacs --batch -q -l dap_mode_probe.el EDITORS_EMACS PROGRAM
;; With only editors/emacs on the load path and `(require 'opal-mode)' (and dap-mode itself,
;; without dap-ui): a breakpoint on line 8 of PROGRAM (examples/city_excursions.opal,
;; `excursions := get_excursions_in city'), `M-x dap-debug' choosing the template opal-mode
;; registers, the stop on line 8 with `city' = "Honolulu" in Locals, continue, the second stop
;; with "Jakarta", disconnect. Prints one line per fact; exits 1 on a failure.
;; Batch mode skips the package activation of an interactive start: `package-initialize' does it.
(package-initialize)
(defun out (fmt &rest args) (princ (concat (apply #'format fmt args) "\n")))
(defun fail (fmt &rest args) (out "FAIL: %s" (apply #'format fmt args)) (kill-emacs 1))
(defun wait-for (what seconds predicate)
  "Wait up to SECONDS for PREDICATE, reading the adapter's output meanwhile."
  (with-timeout (seconds (fail "no %s within %d s" what seconds))
    (while (not (funcall predicate)) (accept-process-output nil 0.05))))
(defun request (session command args)
  "Send COMMAND with ARGS through dap-mode, wait for its answer and return its body."
  (let (response)
    (dap--send-message (dap--make-request command args) (lambda (r) (setq response r)) session)
    (wait-for (format "answer to %s" command) 10 (lambda () response))
    (unless (gethash "success" response) (fail "%s: %s" command (gethash "message" response)))
    (gethash "body" response)))
(defun local-value (session frame name)
  "The value of NAME in the Locals scope of FRAME."
  (let* ((scopes (gethash "scopes" (request session "scopes" (list :frameId (gethash "id" frame)))))
         (locals (seq-find (lambda (s) (equal (gethash "name" s) "Locals")) scopes))
         (vars (gethash "variables" (request session "variables"
                                             (list :variablesReference (gethash "variablesReference" locals)))))
         (var (seq-find (lambda (v) (equal (gethash "name" v) name)) vars)))
    (and var (gethash "value" var))))
(let* ((args command-line-args-left)
       (dir (nth 0 args)) (program (nth 1 args))
       (stops 0) offered)
  (setq command-line-args-left nil)
  (add-to-list 'load-path dir)
  (require 'opal-mode)
  ;; dap-mode keeps breakpoints across sessions in a file in ~/.emacs.d: a fresh one per run.
  (setq dap-breakpoints-file (make-temp-file "dap-breakpoints"))
  (add-hook 'kill-emacs-hook (lambda () (ignore-errors (delete-file dap-breakpoints-file))) 100)
  (require 'dap-mode)
  (out "dap-ui loaded: %s" (featurep 'dap-ui))
  (find-file program)
  (out "mode: %s" major-mode)
  (goto-char (point-min))
  (forward-line 7)
  (dap-breakpoint-add)
  (out "breakpoint set: line %d" (line-number-at-pos))
  (add-hook 'dap-stopped-hook (lambda (_session) (setq stops (1+ stops))))
  ;; M-x dap-debug, answering its prompt with the template opal-mode registered.
  (let ((completing-read-function
         (lambda (_prompt collection &rest _)
           (setq offered collection)
           "OPAL: debug this file")))
    (call-interactively #'dap-debug))
  (out "template offered: %s" (and (member "OPAL: debug this file" offered) t))
  (let ((session (dap--cur-session)))
    (unless session (fail "no session"))
    (wait-for "first stop" 20 (lambda () (and (= stops 1) (dap--debug-session-active-frame session))))
    (let ((frame (dap--debug-session-active-frame session))
          (bp (car (gethash (buffer-file-name) (dap--debug-session-breakpoints session)))))
      (out "breakpoint verified: %s" (and bp (gethash "verified" bp) t))
      (out "stopped: line %s, %s" (gethash "line" frame) (gethash "name" frame))
      (out "city: %s" (local-value session frame "city")))
    (dap-continue session (dap--debug-session-thread-id session))
    (wait-for "second stop" 20 (lambda () (and (= stops 2) (dap--debug-session-active-frame session))))
    (let ((frame (dap--debug-session-active-frame session)))
      (out "stopped again: line %s" (gethash "line" frame))
      (out "city: %s" (local-value session frame "city")))
    ;; dap-mode deletes the adapter's process when the session ends (the `terminated' event
    ;; the adapter sends on `disconnect'): a kill (9) is dap-mode's doing, 1 would be the adapter's.
    (let ((proc (dap--debug-session-proc session)) terminated)
      (add-hook 'dap-terminated-hook (lambda (_session) (setq terminated t)))
      (dap-disconnect session)
      (wait-for "adapter exit" 10 (lambda () (not (process-live-p proc))))
      (out "disconnected: terminated %s, adapter exit status %s" terminated (process-exit-status proc))))
  (kill-emacs 0))
