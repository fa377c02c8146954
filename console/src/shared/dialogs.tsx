import { t } from "./i18n";
import { useEffect, useRef, useState, type ReactNode } from "react";

/**
 * A modal dialog (the native <dialog>): focus moves into it and stays there, Escape closes it, and
 * focus returns to what opened it.
 */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement as HTMLElement | null;
    dialog.showModal();
    return () => {
      dialog.close();
      opener?.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby="dialog-title"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id="dialog-title">{title}</h2>
      {children}
    </dialog>
  );
}

/** Asks before a write that cannot be undone; the safe answer has the focus. */
export function ConfirmDialog({
  title,
  children,
  confirm,
  onConfirm,
  onClose,
  busy = false,
}: {
  title: string;
  children: ReactNode;
  confirm: string;
  onConfirm: () => void;
  onClose: () => void;
  busy?: boolean;
}) {
  return (
    <Dialog title={title} onClose={onClose}>
      {children}
      <div className="actions">
        <button type="button" onClick={onClose}>
          {t("common.cancel")}
        </button>
        <button type="button" className="danger" disabled={busy} onClick={onConfirm}>
          {confirm}
        </button>
      </div>
    </Dialog>
  );
}

/** Copies a text to the clipboard and says so. */
export function CopyButton({ text, label = t("common.copy") }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  return (
    <>
      <button
        type="button"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(text);
            setCopied(true);
          } catch {
            setCopied(false);
          }
        }}
      >
        {label}
      </button>
      <span role="status" className="muted">
        {copied === true ? t("common.copied") : copied === false ? t("common.copyRefused") : ""}
      </span>
    </>
  );
}

/** A secret the API shows once (a key, a signing secret): shown until dismissed, with a copy button. */
export function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  return (
    <Dialog title={label} onClose={onDone}>
      <p>{t("common.secretOnce")}</p>
      <p className="secret">
        <code>{secret}</code>
      </p>
      <div className="actions">
        <CopyButton text={secret} />
        <button type="button" className="primary" onClick={onDone}>
          {t("common.done")}
        </button>
      </div>
    </Dialog>
  );
}
