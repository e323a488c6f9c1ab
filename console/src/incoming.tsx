import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { api } from './api';
import { useCallAction, type CallAction } from './call-action';
import { useDevices } from './context';
import { deviceName } from './format';
import { useLive } from './live';
import { closeNotification, notifyRinging, requestNotifications, useNotificationPermission } from './notifications';
import { usePrefs } from './prefs';
import { ringer } from './ringer';
import { Link, navigate } from './router';
import { setAlertTitle } from './title';
import type { Call } from './types';
import { Button, ErrorText } from './ui';

/** The toast's keyboard shortcuts, while focus is on it. */
const SHORTCUTS: Record<string, 'answer' | 'reject' | 'open' | 'silence'> = { a: 'answer', r: 'reject', o: 'open', s: 'silence' };

/** Whether the person is typing: a key press then is meant for the field, never for a ringing call. */
function typing(): boolean {
  const el = document.activeElement as HTMLElement | null;
  if (!el) return false;
  if (el.isContentEditable || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') return true;
  return el.tagName === 'INPUT' && !['button', 'checkbox', 'radio', 'submit', 'reset'].includes((el as HTMLInputElement).type);
}

/**
 * Incoming calls that ring right now, on every page, like a phone: a ring (unless silenced), the tab
 * title, a desktop notification while the console is not in front, and a toast that takes focus
 * (unless the person is typing) with answer, reject and open under single keys.
 */
export function IncomingCalls({ currentPath }: { currentPath: string }) {
  const [ringing, setRinging] = useState<Call[]>([]);
  const [silenced, setSilenced] = useState<ReadonlySet<string>>(new Set());
  const { devices } = useDevices();
  const { ringSound } = usePrefs();

  const load = useCallback(() => {
    api.calls({ state: 'ringing', direction: 'incoming', limit: 5 }).then(
      (r) => setRinging(r.calls),
      () => undefined,
    );
  }, []);
  useEffect(load, [load]);
  useLive((m) => {
    if (m.type !== 'call') return;
    const call = m.call;
    setRinging((list) => {
      const rest = list.filter((c) => c.id !== call.id);
      return call.direction === 'incoming' && call.state === 'ringing' ? [call, ...rest] : rest;
    });
  }, load);

  const audible = ringing.filter((c) => !silenced.has(c.id));
  useEffect(() => {
    if (ringSound && audible.length > 0) ringer.start();
    else ringer.stop();
  }, [ringSound, audible.length]);
  useEffect(() => () => ringer.stop(), []);

  const first = ringing[0];
  useEffect(() => {
    setAlertTitle(first ? `${ringing.length > 1 ? `(${ringing.length}) ` : ''}☎ Incoming call: ${first.remoteNumber || 'unknown number'}` : null);
  }, [first, ringing.length]);
  useEffect(() => () => setAlertTitle(null), []);

  const ids = ringing.map((c) => c.id).join(',');
  useEffect(() => {
    for (const call of ringing) notifyRinging(call.id, 'Incoming call', `${call.remoteNumber || 'Unknown number'} on ${deviceName(devices, call.deviceId, call)}`, () => navigate(`/calls/${call.id}`));
    return () => {
      for (const id of ids.split(',')) if (id) closeNotification(id);
    };
    // The notification is made once per call; a phone's new name does not make another.
  }, [ids]);

  const shown = ringing.filter((c) => currentPath !== `/calls/${c.id}`);
  if (shown.length === 0) return null;
  return (
    <div className="toasts" aria-live="assertive">
      {shown.map((call) => (
        <RingingToast
          key={call.id}
          call={call}
          phone={deviceName(devices, call.deviceId, call)}
          ringSound={ringSound && !silenced.has(call.id)}
          onSilence={() => setSilenced((s) => new Set(s).add(call.id))}
        />
      ))}
    </div>
  );
}

function RingingToast({ call, phone, ringSound, onSilence }: { call: Call; phone: string; ringSound: boolean; onSilence: () => void }) {
  const { busy, error, act } = useCallAction(call.id);
  const ref = useRef<HTMLElement>(null);
  const previous = useRef<HTMLElement | null>(null);
  const notifications = useNotificationPermission();
  const hintId = `toast-keys-${call.id}`;

  useEffect(() => {
    if (typing()) return;
    previous.current = document.activeElement as HTMLElement | null;
    ref.current?.focus();
    // Back to where the person was, unless the call took them elsewhere (answer, open).
    return () => {
      if (ref.current?.contains(document.activeElement) || document.activeElement === document.body) previous.current?.focus?.();
    };
  }, []);

  const run = (action: CallAction) => {
    void act(action).then((ok) => {
      if (ok && action === 'answer') navigate(`/calls/${call.id}`);
    });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.repeat || (e.target as HTMLElement).tagName === 'INPUT') return;
    const what = SHORTCUTS[e.key.toLowerCase()];
    if (!what) return;
    e.preventDefault();
    if (what === 'open') navigate(`/calls/${call.id}`);
    else if (what === 'silence') onSilence();
    else run(what);
  };

  return (
    <section ref={ref} className="toast" tabIndex={-1} aria-label={`Incoming call from ${call.remoteNumber || 'an unknown number'}`} aria-describedby={hintId} onKeyDown={onKeyDown} data-call-id={call.id}>
      <div className="toast-ring" aria-hidden="true" />
      <div className="toast-body">
        <p className="toast-title">Incoming call</p>
        <p className="toast-number">{call.remoteNumber || 'Unknown number'}</p>
        <p className="toast-meta">on {phone}</p>
        <div className="toast-actions">
          <Button variant="success" size="sm" busy={busy === 'answer'} onClick={() => run('answer')} aria-keyshortcuts="A">
            Answer <kbd aria-hidden="true">A</kbd>
          </Button>
          <Button variant="danger" size="sm" busy={busy === 'reject'} onClick={() => run('reject')} aria-keyshortcuts="R">
            Reject <kbd aria-hidden="true">R</kbd>
          </Button>
          <Link to={`/calls/${call.id}`} className="btn btn-ghost btn-sm" aria-keyshortcuts="O">
            Open <kbd aria-hidden="true">O</kbd>
          </Link>
        </div>
        <p className="toast-keys muted small" id={hintId}>
          Keys: A answers (with live audio), R rejects, O opens the call{ringSound ? ', S silences the ring' : ''}.
        </p>
        <div className="toast-extras">
          {ringSound && (
            <Button size="sm" variant="ghost" onClick={onSilence} aria-keyshortcuts="S">
              Silence <kbd aria-hidden="true">S</kbd>
            </Button>
          )}
          {notifications === 'default' && (
            <Button size="sm" variant="ghost" onClick={() => void requestNotifications()}>
              Notify me of calls on the desktop
            </Button>
          )}
        </div>
        <ErrorText error={error} />
      </div>
    </section>
  );
}
