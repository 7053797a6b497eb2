;;; e2e.el --- Emacs eglot against the real cad-lsp server, with no plugin  -*- lexical-binding: t -*-

;; Run by .ci/emacs.sh:  emacs --batch -Q -l clients/emacs/e2e.el
;;
;; Debian's Emacs and eglot, as a user has them: open a file, list the code actions on a region,
;; pick the "AI:" action, answer eglot's "Proceed?", save, compare the file's bytes.  Each case
;; prints one line with what it checked and how long the user waited; any failure exits non-zero.
;;
;; Environment:
;;   CAD_LSP_CMD   the server's command line, a JSON array
;;   CAD_WORKDIR   an empty folder for the files
;;   CAD_EXPECT    "planned" (default): the server is bench.scripted's, so each edit is known and the
;;                 saved file must equal it byte for byte; "any": any edit will do (a real model)
;;   CAD_CASES     an Emacs regular expression (alternatives with \|): run only the cases whose names
;;                 match (default: all)

(require 'cl-lib)
(require 'json)

(dolist (dir (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/*"))
  (add-to-list 'load-path dir))
(require 'eglot)

(defconst cad-comment "# checked: the bound includes the last element"
  "The line bench.scripted's plan writes after the first selected line.")
(defconst cad-timeout (string-to-number (or (getenv "CAD_TIMEOUT") "120")) "Seconds a wait may take before it fails.")
(defconst cad-expect (or (getenv "CAD_EXPECT") "planned"))
(defconst cad-workdir (file-name-as-directory (getenv "CAD_WORKDIR")))

(defvar cad-failures 0)
(defvar cad-shown nil "window/showMessage from the server, newest first: (type . message).")
(defvar cad-logged nil "window/logMessage from the server, newest first.")
(defvar cad-confirmations nil "The prompts eglot asked, newest first: (time . prompt).")

(cl-defmethod eglot-handle-notification :before (_server (_method (eql window/showMessage)) &key type message)
  (push (cons type message) cad-shown))

(cl-defmethod eglot-handle-notification :before (_server (_method (eql window/logMessage)) &key _type message)
  (push message cad-logged))

;; eglot asks "[eglot] Server wants to edit: FILE Proceed?" with `y-or-n-p' before it applies a
;; server's edit; in batch mode nobody is there to answer, so the answer is `cad-answer' and the prompt kept.
(defvar cad-answer t)
(advice-add 'y-or-n-p :override
            (lambda (prompt) (push (cons (float-time) prompt) cad-confirmations) cad-answer))

(setq eglot-server-programs
      `((python-mode . ,(append (json-parse-string (getenv "CAD_LSP_CMD") :array-type 'list) nil)))
      eglot-sync-connect 10
      eglot-autoshutdown nil
      make-backup-files nil
      create-lockfiles nil)

;; Sent as workspace/didChangeConfiguration when eglot connects: ours, and another server's.
(setq-default eglot-workspace-configuration '(:cad-lsp (:maxTokens 4000) :pylsp (:maxTokens 1)))

(defun cad-fail (fmt &rest args)
  (signal 'error (list (apply #'format fmt args))))

(defun cad-wait (what predicate &optional timeout)
  "Process the server's messages until PREDICATE holds; fail after TIMEOUT seconds."
  (let ((deadline (+ (float-time) (or timeout cad-timeout))))
    (while (not (funcall predicate))
      (when (> (float-time) deadline)
        (cad-fail "timed out waiting for %s (the server's last log lines: %S)" what (seq-take cad-logged 3)))
      (accept-process-output nil 0.05))))

(defun cad-bytes (file)
  (with-temp-buffer
    (set-buffer-multibyte nil)
    (insert-file-contents-literally file)
    (buffer-string)))

(defun cad-stderr (server)
  "The server's stderr so far (eglot keeps it in a buffer of its own)."
  (let ((buffer (jsonrpc-stderr-buffer server)))
    (if (buffer-live-p buffer) (with-current-buffer buffer (buffer-string)) "")))

(defun cad-open (name text)
  "Write TEXT to NAME in the work folder and visit it, with eglot managing it."
  (let ((file (concat cad-workdir name)))
    (let ((coding-system-for-write 'utf-8-unix)) (write-region text nil file))
    (find-file file)
    (unless (eglot-current-server)
      (apply #'eglot (eglot--guess-contact)))
    (cad-wait "eglot to manage the buffer" (lambda () (and eglot--managed-mode (eglot-current-server))) 60)
    file))

(defun cad-line-start (line)
  (save-excursion (goto-char (point-min)) (forward-line (1- line)) (point)))

(defvar cad-picked nil "When the last action was picked (`float-time').")

(defun cad-pick-ai-action (first last title)
  "List the code actions on lines FIRST..LAST and pick TITLE as a user would; returns the offered titles."
  (let (offered)
    (cl-letf (((symbol-function 'completing-read)
               (lambda (_prompt collection &rest _)
                 (setq offered (mapcar #'car collection))
                 (unless (member title offered) (cad-fail "no %S among the actions %S" title offered))
                 (setq cad-picked (float-time))
                 title)))
      ;; eglot offers a mouse menu when the last event was not a key: a user picking from the keyboard.
      (let ((last-nonmenu-event ?\r))
        (eglot-code-actions (cad-line-start first) (cad-line-start (1+ last)) nil t)))
    offered))

(defun cad-planned (text first dropped)
  "TEXT with the planned comment line after line FIRST and the line holding DROPPED removed."
  (let* ((lines (split-string text "\n"))
         (below (nth first lines))
         (indent (progn (string-match "^[ \t]*" below) (match-string 0 below)))
         (out (append (cl-subseq lines 0 first) (list (concat indent cad-comment)) (nthcdr first lines))))
    (mapconcat #'identity (cl-remove-if (lambda (line) (string-match-p (regexp-quote dropped) line)) out) "\n")))

(defun cad-model-loaded-p ()
  (cl-some (lambda (m) (string-match-p "loaded in" m)) cad-logged))

(defun cad-edit-case (name text first last instruction &optional at-least while-loading)
  "Pick the AI: action on lines FIRST..LAST of a new file; check the saved bytes and the messages.
AT-LEAST: the edit must take that many seconds.  WHILE-LOADING: the model must still be loading at the pick."
  (let* ((file (cad-open name text))
         (server (eglot-current-server))
         (stderr-before (length (cad-stderr server)))
         (shown-before (length cad-shown))
         (asked-before (length cad-confirmations))
         (title (concat "AI: " instruction))
         (loading (not (cad-model-loaded-p)))
         offered picked answered edited)
    (condition-case err
        (setq offered (cad-pick-ai-action first last title))
      (error (cad-fail "picking %S: %s" title (error-message-string err))))
    (setq picked cad-picked answered (float-time))
    (cad-wait "the edit" (lambda () (> (length cad-confirmations) asked-before)))
    (setq edited (car (car cad-confirmations)))
    (cad-wait "the buffer to change" (lambda () (buffer-modified-p)) 10)
    (cad-wait "the server's message" (lambda () (> (length cad-shown) shown-before)) 10)
    (save-buffer)
    (accept-process-output nil 0.5)  ; didSave, and any late message
    (let* ((bytes (cad-bytes file))
           (shown (reverse (cl-subseq cad-shown 0 (- (length cad-shown) shown-before))))
           (stderr (substring (cad-stderr server) stderr-before))
           (prompt (cdr (car cad-confirmations))))
      (dolist (want '("AI: " "Add docstrings" "Fix the bug"))
        (unless (cl-some (lambda (o) (string-prefix-p want o)) offered)
          (cad-fail "the actions %S lack %S" offered want)))
      (unless (string-match-p (concat "Server wants to edit:\n  " (regexp-quote file) "\n Proceed\\? ") prompt)
        (cad-fail "eglot's confirmation was %S" prompt))
      (when (equal cad-expect "planned")
        (let ((expected (encode-coding-string (cad-planned text first (concat "AI: " instruction)) 'utf-8)))
          (unless (string= bytes expected)
            (cad-fail "the saved bytes differ:\n%S\nexpected\n%S" bytes expected))))
      (when (string= bytes (encode-coding-string text 'utf-8))
        (cad-fail "the file is unchanged"))
      (unless (= (length shown) 1)
        (cad-fail "%d messages shown, not one: %S" (length shown) shown))
      (when (<= (car (car shown)) 2)
        (cad-fail "an error or warning was shown: %S" shown))
      (unless (string-empty-p (string-trim stderr))
        (cad-fail "the server wrote to stderr:\n%s" stderr))
      (when (and while-loading (not loading))
        (cad-fail "the model had loaded before the action was picked"))
      (when (and at-least (< (- edited picked) at-least))
        (cad-fail "the edit took %.1f s, meant to outlast eglot's %d s" (- edited picked) at-least))
      (message "emacs-e2e: ok   %s: %d actions; the model %s at the pick; command answered in %.2f s; action -> edit (eglot's Proceed?) %.1f s; saved bytes %s; one message: %s"
               name (length offered) (if loading "was loading" "had loaded") (- answered picked) (- edited picked)
               (if (equal cad-expect "planned") "= planned edit" "changed") (cdr (car shown)))
      (let ((detail (cl-find-if (lambda (m) (string-match-p " forwards, " m)) cad-logged)))
        (when detail (message "emacs-e2e:      the server's log: %s" (car (split-string detail "; program")))))
      (- edited picked))))

(defun cad-decline-case (name text first last instruction)
  "Pick the AI: action and answer eglot's Proceed? with n: nothing changes, one warning says so."
  (let* ((file (cad-open name text))
         (shown-before (length cad-shown))
         (asked-before (length cad-confirmations))
         (cad-answer nil))
    (cad-pick-ai-action first last (concat "AI: " instruction))
    (cad-wait "the edit" (lambda () (> (length cad-confirmations) asked-before)))
    (cad-wait "the server's message" (lambda () (> (length cad-shown) shown-before)) 10)
    (accept-process-output nil 0.5)
    (let ((shown (reverse (cl-subseq cad-shown 0 (- (length cad-shown) shown-before)))))
      (when (buffer-modified-p) (cad-fail "the buffer changed"))
      (unless (string= (cad-bytes file) (encode-coding-string text 'utf-8)) (cad-fail "the file changed"))
      (unless (and (= (length shown) 1) (= (car (car shown)) 2) (string-match-p "refused" (cdr (car shown))))
        (cad-fail "not one warning that the edit was refused: %S" shown))
      (message "emacs-e2e: ok   %s: answered n; the file unchanged; one message: %s" name (cdr (car shown))))))

(defun cad-shutdown ()
  (let ((server (eglot-current-server)))
    (when server (eglot-shutdown server))))

(defconst cad-calc
  (concat "def last_items(items, n):\n"
          "    # AI: make the bound inclusive 🎉\n"
          "    end = len(items) - 1\n"
          "    return items[end - n:end]\n"
          "\n"
          "\n"
          "def greet(name):\n"
          "    return \"h\u00e9llo 😀 \" + name\n"))

(defconst cad-temperature
  (concat "def to_fahrenheit(celsius):\n"
          "    # AI: Add the docstring \"Convert a temperature from Celsius to Fahrenheit.\"\n"
          "    fahrenheit = celsius * 9 / 5 + 32\n"
          "    return fahrenheit\n")
  "For a real model (CAD_EXPECT=any): an edit the embedded 135M model is trained to make.")

(defun cad-case (name &optional slowly at-least while-loading)
  "An edit of lines 1-4 from their AI: comment (SLOWLY: one that the scripted model makes slowly)."
  (if (equal cad-expect "planned")
      (let ((instruction (if slowly "make the bound inclusive slowly 🎉" "make the bound inclusive 🎉")))
        (cad-edit-case name (replace-regexp-in-string "make the bound inclusive 🎉" instruction cad-calc)
                       1 4 instruction at-least while-loading))
    (cad-edit-case name cad-temperature 1 4
                   "Add the docstring \"Convert a temperature from Celsius to Fahrenheit.\"" nil while-loading)))

(defconst cad-cases
  `(("model loaded"
     . ,(lambda ()
          (cad-open "start.py" "x = 1\n")  ; starts the server
          (cad-wait "the model to load" #'cad-model-loaded-p)
          (unless (cl-some (lambda (m) (string-match-p "^settings: .*max_tokens=4000" m)) cad-logged)
            (cad-fail "eglot-workspace-configuration's cad-lsp settings were not taken"))
          (cad-case "loaded.py")))
    ("declined at eglot's Proceed?"
     . ,(lambda () (cad-decline-case "declined.py" cad-calc 1 4 "make the bound inclusive 🎉")))
    ("slow edit, longer than eglot's 10 s request timeout"
     . ,(lambda () (cad-case "slow.py" t (when (equal cad-expect "planned") 10.5))))
    ("picked while the model loads (a new server)"
     . ,(lambda ()
          (cad-shutdown)
          (setq cad-logged nil)
          (cad-case "loading.py" nil nil t)))))

(let ((only (getenv "CAD_CASES")) (passed 0))
  (dolist (case cad-cases)
    (when (or (null only) (string-match-p only (car case)))
      (condition-case err
          (progn (funcall (cdr case)) (cl-incf passed))
        (error (cl-incf cad-failures)
               (message "emacs-e2e: FAIL %s: %s" (car case) (error-message-string err))))))
  (cad-shutdown)
  (message "emacs-e2e: %d passed, %d failed" passed cad-failures)
  (kill-emacs (if (> cad-failures 0) 1 0)))

;;; e2e.el ends here
