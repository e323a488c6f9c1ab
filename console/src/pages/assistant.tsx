import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../api';
import { useSettings } from '../context';
import { ago, fullTime } from '../format';
import { AssistantIcon } from '../icons';
import { LIMITS, VOICES } from '../limits';
import { useLive } from '../live';
import { Link } from '../router';
import type { AssistantMessage, AssistantSettings } from '../types';
import { ConnectionTestButton } from './assistant-connection';
import { Badge, Button, Card, Empty, ErrorText, Loading, PageHeader, SelectField, TextArea, TextField, Toggle, Unavailable, useLoad, useNow } from '../ui';
import { UrgencyBadge } from './call';

export function AssistantPage() {
  const settings = useLoad(() => api.agentSettings(), []);
  const gateway = useSettings();
  const unavailable = settings.error instanceof ApiError && settings.error.routeMissing;
  const key = gateway.settings?.assistantApiKey;

  return (
    <>
      <PageHeader title="Assistant" description="A voice assistant that answers calls for you, asks who is calling and why, and takes a message." />
      <Inbox unavailable={unavailable} />
      <div className="two-col">
        <div>
          {unavailable ? (
            <Card title="Settings" id="assistant-settings">
              <Unavailable what="The assistant" />
              <p className="muted small">It arrives with a later version of the gateway; calls and phones work without it.</p>
            </Card>
          ) : settings.error ? (
            <ErrorText error={settings.error} />
          ) : !settings.data ? (
            <Loading />
          ) : (
            <SettingsForm initial={settings.data.settings} />
          )}
        </div>
        <div>
          <Card title="Model key" id="assistant-key">
            {!key ? (
              <Loading />
            ) : key.configured ? (
              <p>
                <Badge tone="green">Key set</Badge> <span className="muted small">ending in …{key.hint} · from {key.source === 'env' ? 'the environment' : 'the console'}</span>
              </p>
            ) : (
              <p>
                <Badge tone="amber">No key</Badge> <span className="muted small">The assistant needs a key of its voice model.</span>
              </p>
            )}
            <p className="small">
              <Link to="/settings#assistant">Change it in Settings</Link>
            </p>
            {key?.configured && <ConnectionTestButton />}
          </Card>
        </div>
      </div>
    </>
  );
}

function SettingsForm({ initial }: { initial: AssistantSettings }) {
  const [form, setForm] = useState(initial);
  const [saved, setSaved] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState(false);
  const dirty = JSON.stringify(form) !== JSON.stringify(saved);
  const set = <K extends keyof AssistantSettings>(k: K, v: AssistantSettings[K]) => {
    setDone(false);
    setForm((f) => ({ ...f, [k]: v }));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const patch: Partial<AssistantSettings> = {};
    for (const k of Object.keys(form) as Array<keyof AssistantSettings>) if (form[k] !== saved[k]) Object.assign(patch, { [k]: form[k] });
    api.saveAgentSettings(patch).then(
      (r) => {
        setBusy(false);
        setSaved(r.settings);
        setForm(r.settings);
        setDone(true);
      },
      (err: ApiError) => {
        setBusy(false);
        setError(err);
      },
    );
  };
  const voices: string[] = VOICES.includes(form.voice as (typeof VOICES)[number]) ? [...VOICES] : [form.voice, ...VOICES];
  return (
    <Card title="Settings" id="assistant-settings">
      <form onSubmit={submit} className="stack" noValidate>
        <Toggle label="Answer incoming calls" hint="The assistant picks up every incoming call, unless an incoming stream URL is set." checked={form.autoAnswer} onChange={(v) => set('autoAnswer', v)} />
        <TextField
          label="Answers for"
          placeholder="Alex Example"
          maxLength={LIMITS.ownerNameMaxLength}
          counter={{ length: form.ownerName.length, max: LIMITS.ownerNameMaxLength }}
          value={form.ownerName}
          onChange={(e) => set('ownerName', e.target.value)}
          error={error?.field('ownerName')}
          hint="The person or business the assistant answers for."
        />
        <TextArea
          label="What the assistant may tell callers"
          rows={7}
          counter={{ length: form.about.length, max: LIMITS.aboutMaxLength }}
          value={form.about}
          onChange={(e) => set('about', e.target.value)}
          error={error?.field('about') ?? (form.about.length > LIMITS.aboutMaxLength ? `At most ${LIMITS.aboutMaxLength} characters` : undefined)}
          placeholder="Opening hours, how to reach you, what callers usually ask…"
        />
        <SelectField label="Voice" value={form.voice} onChange={(e) => set('voice', e.target.value as AssistantSettings['voice'])} error={error?.field('voice')}>
          {voices.map((v) => (
            <option key={v} value={v}>
              {v.charAt(0).toUpperCase() + v.slice(1)}
            </option>
          ))}
        </SelectField>
        <div className="form-actions">
          <Button type="submit" variant="primary" busy={busy} disabled={!dirty || form.about.length > LIMITS.aboutMaxLength}>
            Save
          </Button>
          {done && !dirty && (
            <span className="saved" role="status">
              ✓ Saved
            </span>
          )}
          {error && !error.issues.length && <ErrorText error={error} />}
        </div>
      </form>
    </Card>
  );
}

/**
 * The messages the assistant took, as an inbox: newest first, unread ones marked (the read mark is
 * the line's, shared by everyone on the console), urgency shown, each with its call and transcript
 * one click away and a button that fills the dialer with the number to call back.
 */
function Inbox({ unavailable }: { unavailable: boolean }) {
  const { data, error, setData, reload } = useLoad(() => api.messages(50), []);
  const now = useNow(30_000);
  useLive((m) => {
    if (m.type !== 'message') return;
    const message = m.message;
    setData(
      (inbox) =>
        inbox && {
          messages: inbox.messages.some((x) => x.callId === message.callId) ? inbox.messages.map((x) => (x.callId === message.callId ? message : x)) : [message, ...inbox.messages],
        },
    );
  }, reload);
  const mark = (message: AssistantMessage, read: boolean) =>
    api.markMessage(message.callId, read).then((r) => setData((inbox) => inbox && { messages: inbox.messages.map((x) => (x.callId === r.message.callId ? r.message : x)) }));
  const missing = unavailable || (error instanceof ApiError && error.routeMissing);
  const unread = data?.messages.filter((m) => m.readAt === null).length ?? 0;
  return (
    <Card title={unread > 0 ? `Messages (${unread} unread)` : 'Messages'} id="messages">
      {missing ? (
        <Unavailable what="The message inbox" />
      ) : error ? (
        <ErrorText error={error} />
      ) : !data ? (
        <Loading />
      ) : data.messages.length === 0 ? (
        <Empty title="No messages yet" icon={<AssistantIcon />}>When the assistant takes a message, it appears here, newest first.</Empty>
      ) : (
        <ul className="messages">
          {data.messages.map((m: AssistantMessage) => (
            <InboxItem key={m.callId} message={m} now={now} onMark={(read) => mark(m, read)} />
          ))}
        </ul>
      )}
    </Card>
  );
}

function InboxItem({ message: m, now, onMark }: { message: AssistantMessage; now: number; onMark: (read: boolean) => Promise<unknown> }) {
  const [error, setError] = useState<unknown>(null);
  const unread = m.readAt === null;
  const callback = m.callbackNumber || m.remoteNumber;
  const markRead = (read: boolean) => {
    setError(null);
    onMark(read).catch((err: unknown) => setError(err));
  };
  return (
    <li className={`message urgency-${m.urgency} ${unread ? 'unread' : ''}`} data-call-id={m.callId} data-unread={unread}>
      <div className="message-head">
        {unread && (
          <span className="unread-dot" title="Unread">
            <span className="sr-only">Unread: </span>
          </span>
        )}
        <strong>{m.callerName || 'Unknown caller'}</strong>
        <UrgencyBadge urgency={m.urgency} />
        <time className="muted small" dateTime={m.takenAt} title={fullTime(m.takenAt)}>
          {ago(m.takenAt, now)}
        </time>
      </div>
      <p>{m.reason}</p>
      <p className="muted small">
        Call back: <span className="mono">{callback}</span>
      </p>
      <div className="inline-actions message-actions">
        <Link to={`/calls/${m.callId}#transcript`} className="btn btn-sm btn-primary" onClick={() => unread && markRead(true)}>
          Open the call and transcript
        </Link>
        <Link to={`/dialer?to=${encodeURIComponent(callback)}`} className="btn btn-sm" aria-label={`Call back ${callback}`}>
          Call back
        </Link>
        <Button size="sm" variant="ghost" onClick={() => markRead(unread)}>
          {unread ? 'Mark as read' : 'Mark as unread'}
        </Button>
      </div>
      <ErrorText error={error} />
    </li>
  );
}
