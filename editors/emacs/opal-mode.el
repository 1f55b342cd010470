;;; opal-mode.el --- Major mode for OPAL programs  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1"))
;; Keywords: languages

;;; Commentary:

;; OPAL (`*.opal') is an indentation-based, Python-like language; its toolchain `opal' runs the
;; language server (`opal lsp') and the debug adapter (`opal dap').  This mode gives `.opal'
;; files highlighting, indentation and `#' comments, and registers the two servers with the
;; clients that are installed, when they load:
;;   * eglot:    `opal lsp' for `opal-mode' (then `M-x eglot', or `eglot-ensure' in a hook);
;;   * lsp-mode: the client `opal-lsp' (then `M-x lsp');
;;   * dap-mode: the debug provider "opal" and the template "OPAL: debug this file" (then
;;     `M-x dap-debug' in an `.opal' buffer).
;; Setup (docs/editors.md):
;;   (add-to-list 'load-path "/path/to/opal/editors/emacs")
;;   (require 'opal-mode)

;;; Code:

(require 'seq)

(defgroup opal nil
  "OPAL programs."
  :group 'languages
  :prefix "opal-")

(defcustom opal-executable "opal"
  "The `opal' program that runs the language server and the debug adapter."
  :type 'string)

(defcustom opal-indent-offset 4
  "Columns per block level: four, as `opal fmt' writes."
  :type 'integer)

;;;; Highlighting

;; The token classes and word lists of the VS Code extension's TextMate grammar
;; (vscode-extension/syntaxes/gen.py); tests/editor/run.sh checks that the lists stay the same.

(defconst opal--keywords
  '("if" "elif" "else" "for" "in" "while" "do" "ret" "fun" "rec" "extern" "prj" "and" "or" "not"))

(defconst opal--not-keywords '("break" "continue" "return" "def" "lambda")
  "Python words OPAL does not have: the compiler refuses them with a message.")

(defconst opal--externals
  '("add" "sub" "mul" "div" "mod" "neg" "eq" "ne" "lt" "le" "gt" "ge" "concat_str" "len"
    "to_str" "parse_int" "split_lines" "split_words" "print" "sleep" "coin" "now" "fork" "join"
    "llm" "llm_chat" "print_raw" "read_file" "write_file" "append_file" "list_dir" "getenv"
    "http_get" "http_post" "create_process" "fd_write_and_close" "fd_read_and_close" "range"
    "contains" "index" "get" "keys" "values" "items" "sum" "max" "min" "sorted" "reversed"
    "topk" "order_by" "zip" "enumerate" "json_parse" "json_dump" "error"))

(defconst opal--prelude
  '("nil" "cons" "fold" "concat" "map" "filter" "length" "reverse" "is_empty" "join_str" "fix"
    "sort_by"))

;; Emacs 29 has faces for numbers, operators and escapes; Emacs 28 borrows close ones.
(defface opal-number-face
  `((t :inherit ,(if (facep 'font-lock-number-face) 'font-lock-number-face 'font-lock-constant-face)))
  "Numbers in OPAL programs.")
(defface opal-operator-face
  `((t ,@(and (facep 'font-lock-operator-face) '(:inherit font-lock-operator-face))))
  "Operators (`:=', `+=', `++', comparisons) in OPAL programs.")
(defface opal-escape-face
  `((t :inherit ,(if (facep 'font-lock-escape-face) 'font-lock-escape-face 'font-lock-constant-face)))
  "Escapes in OPAL strings.")
(defface opal-label-face '((t :inherit font-lock-constant-face))
  "Statement labels (`1.2 x := ...') in printed core terms.")

(defconst opal--name "[A-Za-z_][A-Za-z0-9_]*\\(?:'[0-9]+\\)?")

(defconst opal-font-lock-keywords
  `(;; A statement's label at the start of a line, in printed core terms.
    (,(concat "^\\([0-9]+\\(?:\\.[0-9]+\\)*\\)[ \t]+\\(?:ret\\_>\\|" opal--name "[ \t]*:=\\)")
     1 'opal-label-face)
    ;; `extern [sequential|readonly|unordered] a, b': the ordering word and the declared names.
    ("^[ \t]*extern\\_>"
     ("\\_<\\(?:\\(sequential\\|readonly\\|unordered\\)\\|\\([A-Za-z_][A-Za-z0-9_]*\\)\\)\\_>"
      (line-end-position) nil
      (1 font-lock-keyword-face nil t) (2 font-lock-function-name-face nil t)))
    ;; `name := fun ...', also with `rec'.
    (,(concat "^[ \t]*\\(?:rec[ \t]+\\)?\\(" opal--name "\\)[ \t]*:=[ \t]*fun\\_>")
     1 font-lock-function-name-face)
    (,(regexp-opt opal--keywords 'symbols) . font-lock-keyword-face)
    (,(regexp-opt opal--not-keywords 'symbols) . font-lock-warning-face)
    (,(regexp-opt '("true" "false" "stdout" "stderr") 'symbols) . font-lock-constant-face)
    (,(regexp-opt (append opal--externals opal--prelude) 'symbols) . font-lock-builtin-face)
    ("\\_<[0-9]+\\(?:\\.[0-9]+\\)?\\(?:[eE][+-]?[0-9]+\\)?\\_>" . 'opal-number-face)
    (":=\\|\\+\\+=\\|[-+]=\\|\\+\\+\\|[=!<>]=\\|[-+*/%<>&]" . 'opal-operator-face)
    ;; Escapes, inside strings only (`syntax-ppss' moves point: font-lock would search again
    ;; from there, for ever).
    ("\\\\\\(?:[nt\"\\\\]\\|u{[0-9A-Fa-f]\\{1,6\\}}\\)"
     (0 (and (save-excursion (save-match-data (nth 3 (syntax-ppss (match-beginning 0)))))
             'opal-escape-face)
        prepend)))
  "Highlighting beyond strings and comments (those come from the syntax table).")

(defvar opal-mode-syntax-table
  (let ((table (make-syntax-table)))
    (modify-syntax-entry ?# "<" table)
    (modify-syntax-entry ?\n ">" table)
    (modify-syntax-entry ?\" "\"" table)
    (modify-syntax-entry ?\\ "\\" table)
    ;; Parts of names: `_', and `'' and `@' of the names the desugarer and the machine invent
    ;; (`x'2', `x@1.2') that views print.
    (modify-syntax-entry ?_ "_" table)
    (modify-syntax-entry ?' "_" table)
    (modify-syntax-entry ?@ "_" table)
    (dolist (c '(?+ ?- ?* ?/ ?% ?< ?> ?= ?! ?& ?: ?,))
      (modify-syntax-entry c "." table))
    table)
  "Syntax table of `opal-mode'.")

;;;; Indentation
;;
;; OPAL is indentation-based like Python (LANGUAGE.md): a line ending with `:' opens a block,
;; the block is the lines indented deeper, `ret' is the last item of its block, newlines inside
;; brackets are ignored.  So:
;;   * after a line ending with `:' the line is one level deeper (a block's first line);
;;   * inside brackets a line is one level deeper than the line that opened them, a line that
;;     starts with the closing bracket at that line's level;
;;   * `elif'/`else' line up with an `if' or `elif' above, the `while' that ends a `do:' block
;;     with its `do';
;;   * any other line may stay in its block or leave it for an enclosing one, which only the
;;     writer knows: its indentation is kept when it is one of those levels (`indent-region'
;;     re-indents pasted code without changing its meaning), else it takes the nearest level
;;     below it; a new line starts in the innermost block (after `ret', the one outside it), and
;;     TAB again moves it one block out.
;; The Vim indent file (editors/vim/indent/opal.vim) implements the same rules.

(defun opal--code ()
  "The current line without its comment and with its strings emptied.
A `#', a `:' or a bracket inside a string then does not count."
  (replace-regexp-in-string
   "#.*" ""
   (replace-regexp-in-string "\"\\(?:[^\"\\\\]\\|\\\\.\\)*\\(?:\"\\|$\\)" "\"\""
                             (buffer-substring-no-properties (line-beginning-position)
                                                             (line-end-position)))))

(defun opal--balance (code)
  "Brackets opened minus brackets closed in CODE."
  (- (seq-count (lambda (c) (memq c '(?\( ?\[ ?{))) code)
     (seq-count (lambda (c) (memq c '(?\) ?\] ?}))) code)))

(defun opal--opens-block-p ()
  "Whether the current line ends with `:'."
  (string-match-p ":[ \t]*\\'" (opal--code)))

(defun opal--prev-code ()
  "Move to the previous line with code (not blank, not only a comment).
Return nil, without moving, when there is none."
  (let ((start (point)) found)
    (while (and (not found) (zerop (forward-line -1)))
      (setq found (not (looking-at-p "[ \t]*\\(?:#\\|$\\)"))))
    (unless found (goto-char start))
    found))

(defun opal--first-word ()
  (save-excursion
    (back-to-indentation)
    (and (looking-at "[A-Za-z_][A-Za-z0-9_]*") (match-string-no-properties 0))))

(defun opal--brackets ()
  "For the code line at point: (OPENER . START), positions of lines.
OPENER is the line of the innermost bracket still open after this line (nil
when none); START the first line of the statement this line ends.  Looks back
50 code lines at most, as Vim's Python indentation does."
  (save-excursion
    (let ((sum 0) (steps 0) start opener)
      (while (and (not opener) (< steps 50))
        (setq sum (+ sum (opal--balance (opal--code))))
        (cond ((> sum 0) (setq opener (line-beginning-position)))
              ((and (= sum 0) (not start)) (setq start (line-beginning-position))))
        (setq steps (if (opal--prev-code) (1+ steps) 50)))
      (cons opener start))))

(defun opal--levels ()
  "The levels a line after the statement at point may take, innermost first.
Each is (COLUMN . FIRST-WORD): the statement's own level (an `if' with a
one-line body may be followed by `else'), then the block openers around it."
  (save-excursion
    (let* ((min (current-indentation))
           (levels (list (cons min (opal--first-word)))))
      (while (and (> min 0) (opal--prev-code))
        (when (and (< (current-indentation) min) (opal--opens-block-p))
          (setq min (current-indentation))
          (push (cons min (opal--first-word)) levels)))
      (nreverse levels))))

(defun opal--candidates ()
  "The columns the current line may be indented to, innermost first."
  (save-excursion
    (beginning-of-line)
    (let* ((line (buffer-substring-no-properties (point) (line-end-position)))
           (closer (string-match-p "\\`[ \t]*[])}]" line))
           (dedent (cond ((string-match-p "\\`[ \t]*\\(?:elif\\|else\\)\\_>" line) '("if" "elif"))
                         ((and (string-match-p "\\`[ \t]*while\\_>" line) (not (opal--opens-block-p)))
                          '("do")))))
      (if (not (opal--prev-code))
          (list 0)
        (let ((brackets (opal--brackets)))
          (cond
           ((car brackets)
            (goto-char (car brackets))
            (list (+ (current-indentation) (if closer 0 opal-indent-offset))))
           ((opal--opens-block-p)
            (goto-char (or (cdr brackets) (point)))
            (list (+ (current-indentation) opal-indent-offset)))
           (t
            (goto-char (or (cdr brackets) (point)))
            (let ((levels (opal--levels)))
              (when (and (equal (opal--first-word) "ret") (cdr levels))
                (setq levels (cdr levels)))
              (mapcar #'car (or (and dedent (seq-filter (lambda (l) (member (cdr l) dedent)) levels))
                                levels))))))))))

(defun opal-indent-line ()
  "Indent the current line as OPAL code (see the rules above `opal--code')."
  (interactive)
  (let* ((cands (opal--candidates))
         (cur (current-indentation))
         (blank (save-excursion (beginning-of-line) (looking-at-p "[ \t]*$")))
         (target
          (cond (blank (car cands))
                ;; TAB again on a line already at a level: the next level out, then round.
                ((and (eq this-command 'indent-for-tab-command) (eq last-command this-command)
                      (memq cur cands))
                 (or (cadr (memq cur cands)) (car cands)))
                (t (or (seq-find (lambda (c) (<= c cur)) cands) (car (last cands)))))))
    (if (> (current-column) (current-indentation))
        (save-excursion (indent-line-to target))
      (indent-line-to target))))

(defun opal--electric-colon ()
  "Line up `else:' and `elif ...:' with their `if' when their colon is typed."
  (when (and (eq last-command-event ?:)
             (looking-at-p "[ \t]*$")
             (save-excursion (beginning-of-line) (looking-at-p "[ \t]*\\(?:elif\\|else\\)\\_>"))
             (not (nth 8 (syntax-ppss))))
    (indent-according-to-mode)))

;;;; The mode

;;;###autoload
(define-derived-mode opal-mode prog-mode "OPAL"
  "Major mode for OPAL programs (`*.opal').
\\{opal-mode-map}"
  :syntax-table opal-mode-syntax-table
  (setq-local font-lock-defaults '(opal-font-lock-keywords))
  (setq-local comment-start "# ")
  (setq-local comment-start-skip "#+[ \t]*")
  (setq-local comment-end "")
  (setq-local indent-line-function #'opal-indent-line)
  ;; A tab in indentation is an error in OPAL.
  (setq-local indent-tabs-mode nil)
  (setq-local tab-width 8)
  ;; Which block a line belongs to is the writer's choice: RET indents the new line but leaves
  ;; the line it ends alone (as python-mode does).
  (setq-local electric-indent-inhibit t)
  (add-hook 'post-self-insert-hook #'opal--electric-colon nil t))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.opal\\'" . opal-mode))

;;;; Language server and debug adapter

(defun opal--server-command (&rest _)
  "The command of the language server, `opal lsp'."
  (list opal-executable "lsp"))

(with-eval-after-load 'eglot
  (defvar eglot-server-programs)
  (add-to-list 'eglot-server-programs '(opal-mode . opal--server-command)))

(declare-function lsp-register-client "lsp-mode")
(declare-function make-lsp-client "lsp-mode")
(declare-function lsp-stdio-connection "lsp-mode")
(declare-function lsp-activate-on "lsp-mode")
(with-eval-after-load 'lsp-mode
  (defvar lsp-language-id-configuration)
  (add-to-list 'lsp-language-id-configuration '(opal-mode . "opal"))
  (lsp-register-client
   (make-lsp-client :new-connection (lsp-stdio-connection #'opal--server-command)
                    :activation-fn (lsp-activate-on "opal")
                    :server-id 'opal-lsp)))

(defun opal--dap-provider (conf)
  "Complete the dap-mode launch configuration CONF: `opal dap' on the current file.
The launch arguments are docs/dap.md's; a world file beside the program is used."
  (setq conf (plist-put conf :dap-server-path (list opal-executable "dap")))
  (unless (plist-get conf :program)
    (setq conf (plist-put conf :program
                          (or (buffer-file-name) (user-error "This buffer visits no OPAL file")))))
  conf)

(declare-function dap-register-debug-provider "dap-mode")
(declare-function dap-register-debug-template "dap-mode")
(with-eval-after-load 'dap-mode
  ;; dap-mode 0.7 reads this variable when a session sets its exception breakpoints, but only
  ;; dap-ui defines it: without dap-ui loaded, `dap-debug' failed with `void-variable'.
  (defvar dap-exception-breakpoints nil)
  (dap-register-debug-provider "opal" #'opal--dap-provider)
  (dap-register-debug-template "OPAL: debug this file"
                               (list :type "opal" :request "launch" :name "OPAL: debug this file")))

(provide 'opal-mode)
;;; opal-mode.el ends here
