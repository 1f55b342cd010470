;;; opal_mode_probe.el --- editors/emacs/opal-mode.el in Emacs 28, headless.
;; emacs --batch -q -l opal_mode_probe.el EDITORS_EMACS FILE INDENT_DIR
;; With only `(require 'opal-mode)': FILE opens in opal-mode, keywords, comments, strings and
;; escapes have their faces, `indent-region' turns the scrambled fixture into the fixture, and a
;; block typed line by line (RET, `else:') indents itself. One line per check.
(defun out (fmt &rest args) (princ (concat (apply #'format fmt args) "\n")))
(let* ((args command-line-args-left)
       (dir (nth 0 args)) (file (nth 1 args)) (indent-dir (nth 2 args)))
  (setq command-line-args-left nil)
  (add-to-list 'load-path dir)
  (require 'opal-mode)
  (find-file file)
  (out "mode: %s" major-mode)
  (font-lock-ensure)
  ;; The face at the first match of REGEXP (at its group 1 when it has one).
  (let ((face-at (lambda (regexp)
                   (goto-char (point-min))
                   (if (re-search-forward regexp nil t)
                       (get-text-property (or (match-beginning 1) (match-beginning 0)) 'face)
                     'not-found))))
    (out "face keyword: %s" (funcall face-at "^\\(for\\)"))
    (out "face comment: %s" (funcall face-at "^\\(#\\)"))
    (out "face string: %s" (funcall face-at "\"Oceania\""))
    (out "face function: %s" (funcall face-at "^\\(shout\\) :="))
    (out "face builtin: %s" (funcall face-at "\\(print\\) ("))
    (out "face number: %s" (funcall face-at ":= \\(0\\)")))
  (with-temp-buffer
    (insert "x := \"a\\n\" # \\n\n")
    (opal-mode)
    (font-lock-ensure)
    (let* ((in-string (progn (goto-char (point-min)) (search-forward "\\n") (match-beginning 0)))
           (in-comment (progn (search-forward "\\n") (match-beginning 0))))
      (out "face escape: %s, in a comment: %s"
           (get-text-property in-string 'face) (get-text-property in-comment 'face))))
  ;; Indentation.
  (let ((expected (with-temp-buffer
                    (insert-file-contents (expand-file-name "indent.opal" indent-dir))
                    (buffer-string))))
    (with-temp-buffer
      (insert-file-contents (expand-file-name "indent_scrambled.txt" indent-dir))
      (opal-mode)
      (let ((inhibit-message t)) (indent-region (point-min) (point-max)))
      (out "indent fixture: %s"
           (if (equal (buffer-string) expected) "as expected"
             (let ((got (split-string (buffer-string) "\n")) (want (split-string expected "\n")) (i 0) wrong)
               (while (or got want)
                 (setq i (1+ i))
                 (unless (equal (car got) (car want)) (push i wrong))
                 (setq got (cdr got) want (cdr want)))
               (format "differs at line(s) %s" (nreverse wrong))))))
    ;; Typing: RET is `newline' (electric-indent-mode indents the new line), `:' runs
    ;; post-self-insert-hook as typed.
    (with-temp-buffer
      (opal-mode)
      (dolist (c (string-to-list "for x in xs:\ny := x\nif y:\nprint y\nelse:\nret y\ndone"))
        (let ((last-command-event c))
          (if (eq c ?\n) (call-interactively #'newline) (call-interactively #'self-insert-command))))
      (out "indent typed: %s"
           (if (equal (buffer-string) "for x in xs:\n    y := x\n    if y:\n        print y\n    else:\n        ret y\n    done")
               "as expected" (format "%S" (buffer-string)))))
    ;; TAB again moves a line one block out.
    (with-temp-buffer
      (opal-mode)
      (insert "if a:\n    if b:\n        x := 1\n        y := 2")
      (let ((cols nil))
        (dotimes (_ 4)
          (let ((this-command 'indent-for-tab-command)) (indent-for-tab-command))
          (setq last-command 'indent-for-tab-command)
          (push (current-indentation) cols))
        (out "tab cycle: %s" (nreverse cols))))
    (out "comment-start: %S, indent-tabs-mode: %s" comment-start indent-tabs-mode))
  (kill-emacs 0))
