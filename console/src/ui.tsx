import { useCallback, useEffect, useId, useRef, useState, type ComponentProps, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import { ApiError, messageOf } from './api';
import { STATE_LABELS } from './format';
import { takeHeadingFocus } from './router';
import type { CallState, LinkStatus } from './types';

type ButtonProps = ComponentProps<'button'> & { variant?: 'primary' | 'secondary' | 'danger' | 'ghost' | 'success'; busy?: boolean; size?: 'sm' | 'md' };

/**
 * A button. While `busy` it stays enabled but ignores clicks (aria-disabled), so a focused button
 * keeps the focus while its action runs (a disabled one would drop it to the page).
 */
export function Button({ variant = 'secondary', busy = false, size = 'md', className = '', disabled, children, type = 'button', onClick, ...rest }: ButtonProps) {
  return (
    <button
      type={busy && type === 'submit' ? 'button' : type}
      className={`btn btn-${variant} ${size === 'sm' ? 'btn-sm' : ''} ${className}`}
      disabled={disabled}
      aria-disabled={busy || undefined}
      aria-busy={busy || undefined}
      onClick={busy ? undefined : onClick}
      {...rest}
    >
      {busy && <span className="spinner" aria-hidden="true" />}
      {children}
    </button>
  );
}

/** An error shown beside the control that caused it; announced to screen readers. */
export function ErrorText({ error, id }: { error: unknown; id?: string }) {
  if (!error) return null;
  let text = typeof error === 'string' ? error : messageOf(error);
  if (error instanceof ApiError && error.retryAfter) text += ` (try again in ${formatWait(error.retryAfter)})`;
  return (
    <p className="error-text" role="alert" id={id}>
      {text}
    </p>
  );
}

const formatWait = (seconds: number): string => (seconds < 90 ? `${seconds} s` : `${Math.ceil(seconds / 60)} min`);

interface FieldFrame {
  label: ReactNode;
  hint?: ReactNode;
  error?: string | undefined;
  counter?: { length: number; max: number };
  className?: string;
}

function Frame({ id, label, hint, error, counter, className = '', children }: FieldFrame & { id: string; children: ReactNode }) {
  const near = counter && counter.length > counter.max * 0.9;
  return (
    <div className={`field ${className}`}>
      <div className="field-label-row">
        <label htmlFor={id}>{label}</label>
        {counter && (
          <span className={`counter ${counter.length > counter.max ? 'over' : near ? 'near' : ''}`} id={`${id}-count`} aria-live="polite">
            {counter.length.toLocaleString()} / {counter.max.toLocaleString()}
          </span>
        )}
      </div>
      {children}
      {/* The error goes first, and the hint stays: it often says how to get the value right (where a token is). */}
      {error && (
        <p className="error-text" role="alert" id={`${id}-error`}>
          {error}
        </p>
      )}
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

const describedBy = (id: string, f: FieldFrame): string | undefined =>
  [f.error ? `${id}-error` : '', f.hint ? `${id}-hint` : '', f.counter ? `${id}-count` : ''].filter(Boolean).join(' ') || undefined;

export function TextField({ label, hint, error, counter, className, ...input }: FieldFrame & InputHTMLAttributes<HTMLInputElement>) {
  const auto = useId();
  const id = input.id ?? auto;
  const frame = { label, hint, error, counter, className };
  return (
    <Frame id={id} {...frame}>
      <input id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, frame)} {...input} />
    </Frame>
  );
}

export function TextArea({ label, hint, error, counter, className, ...input }: FieldFrame & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const auto = useId();
  const id = input.id ?? auto;
  const frame = { label, hint, error, counter, className };
  return (
    <Frame id={id} {...frame}>
      <textarea id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, frame)} {...input} />
    </Frame>
  );
}

export function SelectField({ label, hint, error, className, children, ...select }: FieldFrame & SelectHTMLAttributes<HTMLSelectElement>) {
  const auto = useId();
  const id = select.id ?? auto;
  const frame = { label, hint, error, className };
  return (
    <Frame id={id} {...frame}>
      <select id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, frame)} {...select}>
        {children}
      </select>
    </Frame>
  );
}

export function Toggle({ label, hint, checked, onChange, disabled }: { label: ReactNode; hint?: ReactNode; checked: boolean; onChange: (v: boolean) => void; disabled?: boolean }) {
  const id = useId();
  return (
    <div className="toggle-row">
      <div>
        <label htmlFor={id} className="toggle-label">
          {label}
        </label>
        {hint && (
          <p className="hint" id={`${id}-hint`}>
            {hint}
          </p>
        )}
      </div>
      <input
        id={id}
        type="checkbox"
        role="switch"
        className="switch"
        checked={checked}
        disabled={disabled}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(e) => onChange(e.target.checked)}
      />
    </div>
  );
}

export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // After a move to this page, focus starts at its heading (also when the page appears only once its data has loaded).
  useEffect(() => {
    if (takeHeadingFocus()) heading.current?.focus({ preventScroll: true });
  }, []);
  return (
    <header className="page-header">
      <div>
        <h1 tabIndex={-1} ref={heading}>
          {title}
        </h1>
        {description && <p className="page-description">{description}</p>}
      </div>
      {actions && <div className="page-actions">{actions}</div>}
    </header>
  );
}

export function Card({ title, actions, children, className = '', id }: { title?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string; id?: string }) {
  return (
    <section className={`card ${className}`} aria-labelledby={title && id ? `${id}-title` : undefined}>
      {(title || actions) && (
        <div className="card-header">
          {title && <h2 id={id ? `${id}-title` : undefined}>{title}</h2>}
          {actions && <div className="card-actions">{actions}</div>}
        </div>
      )}
      {children}
    </section>
  );
}

export function Empty({ title, children, action, icon = '○' }: { title: string; children?: ReactNode; action?: ReactNode; icon?: ReactNode }) {
  return (
    <div className="empty">
      <div className="empty-icon" aria-hidden="true">
        {icon}
      </div>
      <p className="empty-title">{title}</p>
      {children && <div className="empty-text">{children}</div>}
      {action && <div className="empty-action">{action}</div>}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="loading" role="status">
      <span className="spinner" aria-hidden="true" /> {label}
    </div>
  );
}

export function Unavailable({ what }: { what: string }) {
  return (
    <p className="unavailable">
      <span aria-hidden="true">◌</span> {what} is not available on this gateway yet.
    </p>
  );
}

type Tone = 'neutral' | 'green' | 'amber' | 'red' | 'blue' | 'purple' | 'gray';

export function Badge({ tone = 'neutral', children, pulse = false, title }: { tone?: Tone; children: ReactNode; pulse?: boolean; title?: string }) {
  return (
    <span className={`badge badge-${tone} ${pulse ? 'pulse' : ''}`} title={title}>
      {children}
    </span>
  );
}

const STATE_TONES: Record<CallState, Tone> = {
  queued: 'amber',
  dialing: 'amber',
  ringing: 'blue',
  active: 'green',
  held: 'purple',
  ended: 'gray',
  rejected: 'gray',
  failed: 'red',
};

export function StateBadge({ state }: { state: CallState }) {
  return (
    <Badge tone={STATE_TONES[state]} pulse={state === 'ringing' || state === 'dialing'}>
      {STATE_LABELS[state]}
    </Badge>
  );
}

const LINK_TONES: Record<LinkStatus, Tone> = { off: 'gray', waiting: 'amber', connecting: 'amber', live: 'green', ended: 'gray', error: 'red' };
const LINK_LABELS: Record<LinkStatus, string> = { off: 'Off', waiting: 'Waiting', connecting: 'Connecting', live: 'Live', ended: 'Ended', error: 'Error' };

export function LinkBadge({ status }: { status: LinkStatus }) {
  return <Badge tone={LINK_TONES[status]}>{LINK_LABELS[status]}</Badge>;
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Outside a secure context the Clipboard API is missing: fall back to a selection.
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

export function CopyButton({ text, label = 'Copy', size = 'sm' }: { text: string; label?: string; size?: 'sm' | 'md' }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = window.setTimeout(() => setState('idle'), 2000);
    return () => window.clearTimeout(t);
  }, [state]);
  return (
    <Button size={size} onClick={() => void copyText(text).then((ok) => setState(ok ? 'copied' : 'failed'))} aria-live="polite">
      {state === 'copied' ? '✓ Copied' : state === 'failed' ? 'Select and copy' : label}
    </Button>
  );
}

/** A destructive action that asks once more, in place, before it runs; shows its own error. */
export function ConfirmButton({ label, confirmLabel, question, onConfirm, size = 'sm' }: { label: string; confirmLabel?: string; question: string; onConfirm: () => Promise<unknown>; size?: 'sm' | 'md' }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <div className="confirm">
        <Button variant="ghost" size={size} className="danger-text" onClick={() => setAsking(true)}>
          {label}
        </Button>
        <ErrorText error={error} />
      </div>
    );
  }
  return (
    <div className="confirm asking" role="group" aria-label={question}>
      <span className="confirm-question">{question}</span>
      <Button
        ref={confirmRef}
        variant="danger"
        size={size}
        busy={busy}
        onClick={() => {
          setBusy(true);
          setError(null);
          onConfirm().then(
            () => {
              setBusy(false);
              setAsking(false);
            },
            (err: unknown) => {
              setBusy(false);
              setAsking(false);
              setError(err);
            },
          );
        }}
      >
        {confirmLabel ?? label}
      </Button>
      <Button size={size} variant="ghost" onClick={() => setAsking(false)} onKeyDown={(e) => e.key === 'Escape' && setAsking(false)}>
        Cancel
      </Button>
    </div>
  );
}

/** Loads data for a page; `reload` fetches again, `setData` applies live changes. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const seq = useRef(0);
  // The caller lists the dependencies of `load`.
  const run = useCallback(load, deps);
  const reload = useCallback(() => {
    const mine = ++seq.current;
    setLoading(true);
    return run().then(
      (value) => {
        if (mine !== seq.current) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (err: unknown) => {
        if (mine !== seq.current) return;
        setError(err);
        setLoading(false);
      },
    );
  }, [run]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, loading, reload, setData };
}

/** The current time, updated every `intervalMs`, for countdowns and "5 min ago". */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(t);
  }, [intervalMs]);
  return now;
}

/**
 * "Newer" and "Older" over the API's `before`/`nextBefore` cursor. `go(before)` shows the page of
 * rows older than `before` (undefined: the newest). It remembers the cursors of the pages passed, so
 * "Newer" steps back; give it a `key` that changes with the filters to start over.
 */
export function Pager<C extends string | number>({ label, before, nextBefore, go }: { label: string; before: C | undefined; nextBefore: C | null; go: (before: C | undefined) => void }) {
  const history = useRef<Array<C | undefined>>([]);
  if (before === undefined && nextBefore === null) return null;
  return (
    <nav className="pager" aria-label={label}>
      <Button disabled={before === undefined} onClick={() => go(history.current.pop())}>
        ← Newer
      </Button>
      <Button
        disabled={nextBefore === null}
        onClick={() => {
          history.current.push(before);
          go(nextBefore ?? undefined);
        }}
      >
        Older →
      </Button>
    </nav>
  );
}
