import { useCallback, useEffect, useState } from 'react';
import { api } from './api';
import { useCallAction } from './call-action';
import { useDevices } from './context';
import { deviceName } from './format';
import { useLive } from './live';
import { Link } from './router';
import type { Call } from './types';
import { Button, ErrorText } from './ui';

/** Incoming calls that ring right now, on every page, with answer and reject at hand. */
export function IncomingCalls({ currentPath }: { currentPath: string }) {
  const [ringing, setRinging] = useState<Call[]>([]);
  const { devices } = useDevices();

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

  const shown = ringing.filter((c) => currentPath !== `/calls/${c.id}`);
  if (shown.length === 0) return null;
  return (
    <div className="toasts" aria-live="assertive">
      {shown.map((call) => (
        <RingingToast key={call.id} call={call} phone={deviceName(devices, call.deviceId)} />
      ))}
    </div>
  );
}

function RingingToast({ call, phone }: { call: Call; phone: string }) {
  const { busy, error, act } = useCallAction(call.id);
  return (
    <section className="toast" aria-label={`Incoming call from ${call.remoteNumber}`}>
      <div className="toast-ring" aria-hidden="true" />
      <div className="toast-body">
        <p className="toast-title">Incoming call</p>
        <p className="toast-number">{call.remoteNumber || 'Unknown number'}</p>
        <p className="toast-meta">on {phone}</p>
        <div className="toast-actions">
          <Button variant="success" size="sm" busy={busy === 'answer'} onClick={() => act('answer')}>
            Answer
          </Button>
          <Button variant="danger" size="sm" busy={busy === 'reject'} onClick={() => act('reject')}>
            Reject
          </Button>
          <Link to={`/calls/${call.id}`} className="btn btn-ghost btn-sm">
            Open
          </Link>
        </div>
        <ErrorText error={error} />
      </div>
    </section>
  );
}
