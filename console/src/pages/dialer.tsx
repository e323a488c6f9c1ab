import { useEffect, useState, type FormEvent } from 'react';
import { normalizeDialable } from '../../../src/calls/dialable.js';
import { api, type ApiError } from '../api';
import { STREAM_FORMAT_OPTIONS } from '../format';
import type { StreamFormat } from '../types';
import { sentence } from '../plain-words';
import { useDevices } from '../context';
import { LIMITS } from '../limits';
import { Link, navigate, useLocation } from '../router';
import { Button, Card, Empty, ErrorText, Loading, PageHeader, SelectField, TextArea, TextField } from '../ui';

const PAD = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'];

export function DialerPage() {
  const { devices, loaded } = useDevices();
  const { query } = useLocation();
  const [deviceId, setDeviceId] = useState(query.get('deviceId') ?? '');
  const [to, setTo] = useState(query.get('to') ?? '');
  const [advanced, setAdvanced] = useState(false);
  const [webhookUrl, setWebhookUrl] = useState('');
  const [streamUrl, setStreamUrl] = useState('');
  const [streamFormat, setStreamFormat] = useState<StreamFormat>('raw');
  const [metadata, setMetadata] = useState('');
  const [metadataError, setMetadataError] = useState<string | undefined>();
  /** What is wrong with the number, said before anything is sent (the API checks the same rule). */
  const [toError, setToError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  useEffect(() => {
    if (deviceId || devices.length === 0) return;
    const first = devices.find((d) => d.connected) ?? devices[0];
    if (first) setDeviceId(first.id);
  }, [devices, deviceId]);

  if (!loaded) return <Loading />;
  if (devices.length === 0) {
    return (
      <>
        <PageHeader title="Dialer" />
        <Empty
          title="No phone to call from"
          icon="☎"
          action={
            <Link to="/phones" className="btn btn-primary">
              Pair a phone
            </Link>
          }
        >
          Calls go out through one of your Android phones. Pair one first.
        </Empty>
      </>
    );
  }

  const selected = devices.find((d) => d.id === deviceId);
  const dialable = to.trim() ? normalizeDialable(to) : null;
  const checkNumber = (): boolean => {
    const problem = dialable && !dialable.ok ? sentence(`The number ${dialable.problem}`) : undefined;
    setToError(problem);
    return problem === undefined;
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!checkNumber()) return;
    let meta: Record<string, unknown> | undefined;
    setMetadataError(undefined);
    if (metadata.trim()) {
      try {
        const parsed: unknown = JSON.parse(metadata);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
        meta = parsed as Record<string, unknown>;
      } catch {
        setMetadataError('Metadata must be a JSON object, such as {"customer": "42"}');
        return;
      }
    }
    setBusy(true);
    setError(null);
    api
      .placeCall({
        deviceId,
        to: to.trim(),
        ...(webhookUrl.trim() ? { webhookUrl: webhookUrl.trim() } : {}),
        ...(streamUrl.trim() ? { stream: { url: streamUrl.trim(), format: streamFormat } } : {}),
        ...(meta ? { metadata: meta } : {}),
      })
      .then(
        (r) => navigate(`/calls/${r.call.id}`),
        (err: ApiError) => {
          setBusy(false);
          setError(err);
        },
      );
  };
  const fieldIssue = (name: string) => error?.field(name);
  const general = error && !['deviceId', 'to', 'webhookUrl', 'stream', 'metadata'].some((f) => error.field(f)) ? error : null;

  return (
    <>
      <PageHeader title="Dialer" description="Place a call from one of your phones." />
      <Card className="dialer-card">
        <form onSubmit={submit} noValidate className="stack">
          <SelectField label="Call from" value={deviceId} onChange={(e) => setDeviceId(e.target.value)} error={fieldIssue('deviceId')}>
            {devices.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name} {d.connected ? '' : '(offline)'}
              </option>
            ))}
          </SelectField>
          {selected && !selected.connected && <p className="notice warn">{selected.name} is offline: the call cannot go out until it reconnects.</p>}
          <TextField
            label="Number"
            type="tel"
            inputMode="tel"
            autoComplete="tel"
            className="dial-number"
            placeholder="+49 151 23456789"
            maxLength={LIMITS.callToMaxLength}
            value={to}
            onChange={(e) => {
              setTo(e.target.value);
              if (toError) setToError(undefined);
            }}
            onBlur={() => checkNumber()}
            error={toError ?? fieldIssue('to')}
            hint={dialable?.ok && dialable.number !== to.trim() ? `Dials ${dialable.number}` : 'Digits, +, * and #. Spaces, dashes, dots and brackets are removed; a comma pauses two seconds.'}
            required
          />
          <div className="dial-pad" role="group" aria-label="Dial pad">
            {PAD.map((k) => (
              <button key={k} type="button" className="key" onClick={() => setTo((v) => (v + k).slice(0, LIMITS.callToMaxLength))} aria-label={`Add ${k}`}>
                <span className="key-digit">{k}</span>
              </button>
            ))}
            <button type="button" className="key key-wide" onClick={() => setTo((v) => v + '+')} aria-label="Add +">
              <span className="key-digit">+</span>
            </button>
            <button type="button" className="key key-wide" onClick={() => setTo((v) => v.slice(0, -1))} aria-label="Delete the last character" disabled={!to}>
              <span className="key-digit">⌫</span>
            </button>
          </div>
          <button type="button" className="disclosure" aria-expanded={advanced} onClick={() => setAdvanced((v) => !v)}>
            {advanced ? '▾' : '▸'} Webhook, stream and metadata
          </button>
          {advanced && (
            <div className="stack compact advanced">
              <TextField label="Webhook URL for this call" placeholder="https://example.com/hooks/voice" value={webhookUrl} onChange={(e) => setWebhookUrl(e.target.value)} error={fieldIssue('webhookUrl')} hint="Receives this call's events instead of the default webhook." />
              <TextField label="Stream to agent (WebSocket URL)" placeholder="wss://agent.example.com/voice" value={streamUrl} onChange={(e) => setStreamUrl(e.target.value)} error={fieldIssue('stream')} hint="The gateway connects the call's audio to it when the call is answered." />
              {streamUrl && (
                <SelectField label="Stream format" value={streamFormat} onChange={(e) => setStreamFormat(e.target.value as StreamFormat)}>
                  {STREAM_FORMAT_OPTIONS.map(([value, label]) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                </SelectField>
              )}
              <TextArea label="Metadata (JSON object)" rows={3} className="mono" placeholder='{"customer": "42"}' value={metadata} onChange={(e) => setMetadata(e.target.value)} error={metadataError ?? fieldIssue('metadata')} />
            </div>
          )}
          <div className="form-actions">
            <Button type="submit" variant="success" busy={busy} disabled={!to.trim() || !deviceId} className="btn-call">
              Call
            </Button>
            <ErrorText error={general} />
          </div>
        </form>
      </Card>
    </>
  );
}
