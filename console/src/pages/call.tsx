import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { api, ApiError } from '../api';
import { LiveAudio } from '../audio/live-audio';
import { useCallAction } from '../call-action';
import { useDevices, useSettings } from '../context';
import { END_CAUSES, type EndCause } from '../../../src/calls/end-cause.js';
import { clockTime, deviceName, endLabel, fullTime, STATE_LABELS, STREAM_FORMAT_OPTIONS, timelineLabel } from '../format';
import { LIMITS } from '../limits';
import { useLive } from '../live';
import { Link } from '../router';
import { FINAL_STATES, type StreamFormat, type AssistantCallInfo, type Call, type CallEvent, type MediaInfo, type StreamInfo, type TranscriptLine } from '../types';
import { Badge, Button, Card, Empty, ErrorText, LinkBadge, Loading, PageHeader, SelectField, StateBadge, TextField, Unavailable, useNow } from '../ui';
import { callDuration } from './calls';

type Optional<T> = { state: 'loading' } | { state: 'ok'; value: T } | { state: 'unavailable' } | { state: 'error'; error: unknown };

/** Loads a resource that a later feature of the gateway provides; a missing route is "not available". */
function optional<T>(load: () => Promise<T>): Promise<Optional<T>> {
  return load().then(
    (value) => ({ state: 'ok', value }),
    (error: unknown) => (error instanceof ApiError && (error.routeMissing || error.status === 404) ? { state: 'unavailable' } : { state: 'error', error }),
  );
}

export function CallPage({ callId }: { callId: string }) {
  const [call, setCall] = useState<Call | null>(null);
  const [media, setMedia] = useState<MediaInfo | null>(null);
  const [events, setEvents] = useState<CallEvent[]>([]);
  const [transcript, setTranscript] = useState<TranscriptLine[]>([]);
  const [stream, setStream] = useState<Optional<StreamInfo>>({ state: 'loading' });
  const [agent, setAgent] = useState<Optional<AssistantCallInfo>>({ state: 'loading' });
  const [error, setError] = useState<unknown>(null);
  const { devices } = useDevices();
  const now = useNow(1000);

  const loadSide = useCallback(() => {
    void optional(() => api.stream(callId)).then(setStream);
    void optional(() => api.agent(callId)).then(setAgent);
    api.transcript(callId).then(
      (r) => setTranscript(r.transcript),
      () => undefined,
    );
  }, [callId]);

  const load = useCallback(() => {
    api.call(callId).then(
      (r) => {
        setCall(r.call);
        setMedia(r.media);
        setError(null);
      },
      (err: unknown) => setError(err),
    );
    api.events(callId).then(
      (r) => setEvents(r.events),
      () => undefined,
    );
    loadSide();
  }, [callId, loadSide]);

  useEffect(load, [load]);

  // The assistant's status has no live message: while it is joining, the page looks again each
  // second, so a failed hand-off shows (with its timeline entry) without a reload.
  const joining = agent.state === 'ok' && (agent.value.status === 'waiting' || agent.value.status === 'connecting');
  useEffect(() => {
    if (!joining) return;
    const timer = setTimeout(load, 1000);
    return () => clearTimeout(timer);
  }, [joining, agent, load]);

  // "Open the call and its transcript" from the assistant's inbox lands here with #transcript.
  const loaded = call !== null;
  useEffect(() => {
    if (loaded && window.location.hash === '#transcript') document.getElementById('transcript')?.scrollIntoView({ block: 'start' });
  }, [loaded]);

  useLive((m) => {
    if (m.type !== 'call' || m.call.id !== callId) return;
    setCall(m.call);
    const event = m.event;
    if (event) setEvents((list) => (list.some((e) => e.eventId === event.eventId) ? list : [...list, event]));
    loadSide();
  }, load);

  if (error) {
    return (
      <>
        <Link to="/calls" className="back-link">
          ← Calls
        </Link>
        {error instanceof ApiError && error.status === 404 ? (
          <Empty title="This call does not exist" action={<Link to="/calls">Back to the calls</Link>}>
            It may have been placed on another gateway, or the link is mistyped.
          </Empty>
        ) : (
          <ErrorText error={error} />
        )}
      </>
    );
  }
  if (!call) return <Loading />;

  const final = FINAL_STATES.has(call.state);
  const phone = devices.find((d) => d.id === call.deviceId);
  return (
    <div className="call-page" data-call-id={call.id} data-state={call.state}>
      <Link to="/calls" className="back-link">
        ← Calls
      </Link>
      <PageHeader
        title={call.remoteNumber || 'Unknown number'}
        description={
          <>
            {call.direction === 'incoming' ? 'Incoming' : 'Outgoing'} call on {deviceName(devices, call.deviceId, call)} · {fullTime(call.createdAt)}
          </>
        }
        actions={
          <div className="call-state" aria-live="polite">
            <StateBadge state={call.state} />
            {final && endLabel(call) && <span className="end-reason">{endLabel(call)}</span>}
            {call.answeredAt && <span className="tabular call-timer">{callDuration(call, now)}</span>}
          </div>
        }
      />
      {phone && !phone.connected && !final && <p className="notice warn">The phone is offline; controls work again once it reconnects.</p>}

      <div className="call-grid">
        <div className="call-main">
          <Controls call={call} />
          {/* Live audio first: hearing the call matters more than the keypad below it. */}
          {!final && media && <LiveAudio call={call} media={media} />}
          {!final && (call.state === 'active' || call.state === 'held') && (
            <Keypad
              call={call}
              // The gateway records the digits on the timeline once the phone acknowledged them (no live message for it).
              onSent={() =>
                api.events(callId).then(
                  (r) => setEvents(r.events),
                  () => undefined,
                )
              }
            />
          )}
          <Card title="Timeline" id="timeline">
            {events.length === 0 ? (
              <p className="muted">No events yet.</p>
            ) : (
              <ol className="timeline">
                {events.map((e) => (
                  <li key={e.eventId} className={e.event.startsWith('gateway.') ? 'timeline-gateway' : undefined}>
                    <time dateTime={e.receivedAt} title={`Phone: ${fullTime(e.occurredAt)}\nGateway: ${fullTime(e.receivedAt)}`}>
                      {clockTime(e.receivedAt)}
                    </time>
                    <span className="timeline-event">{timelineLabel(e.event)}</span>
                    {e.event.startsWith('gateway.') && <Badge tone="purple">{e.event === 'gateway.dtmf_sent' ? 'sent by the API, not a phone event' : 'recorded by the gateway, not a phone event'}</Badge>}
                    {timelineDetail(e, call)}
                  </li>
                ))}
              </ol>
            )}
          </Card>
          <TranscriptCard transcript={transcript} agent={agent} />
        </div>
        <div className="call-side">
          <StreamCard call={call} stream={stream} onChange={loadSide} />
          <AssistantCard call={call} agent={agent} onChange={load} />
          <Card title="Details" id="details">
            <dl className="details">
              <dt>Call id</dt>
              <dd className="mono">{call.id}</dd>
              <dt>Phone</dt>
              <dd>
                {deviceName(devices, call.deviceId, call)} <span className="muted mono">{call.deviceId}</span>
              </dd>
              <dt>Direction</dt>
              <dd>{call.direction}</dd>
              <dt>Created</dt>
              <dd>{fullTime(call.createdAt)}</dd>
              {call.answeredAt && (
                <>
                  <dt>Answered</dt>
                  <dd>{fullTime(call.answeredAt)}</dd>
                </>
              )}
              {call.endedAt && (
                <>
                  <dt>Ended</dt>
                  <dd>{fullTime(call.endedAt)}</dd>
                </>
              )}
              {call.nativeCallId && (
                <>
                  <dt>Phone's call id</dt>
                  <dd className="mono">{call.nativeCallId}</dd>
                </>
              )}
              {call.webhookUrl && (
                <>
                  <dt>Webhook</dt>
                  <dd className="mono break">{call.webhookUrl}</dd>
                </>
              )}
              <dt>Webhook log</dt>
              <dd>
                <Link to={`/webhooks?callId=${encodeURIComponent(call.id)}`}>Deliveries of this call</Link>
              </dd>
            </dl>
            <h3 className="subhead">Metadata</h3>
            {call.metadata && Object.keys(call.metadata).length > 0 ? <pre className="code-block">{JSON.stringify(call.metadata, null, 2)}</pre> : <p className="muted">None.</p>}
          </Card>
        </div>
      </div>
    </div>
  );
}

/**
 * What an event adds, in the words the page uses elsewhere: the cause of the event that ended the
 * call reads as the header does ("Hung up here", not "cause: local"); other fields stay as sent.
 */
function timelineDetail(e: CallEvent, call: Call) {
  const { cause, reason, commandId: _commandId, ...rest } = e.payload;
  const ending = e.event === 'call.disconnected' && typeof cause === 'string' && (END_CAUSES as readonly string[]).includes(cause);
  // A failed hand-off reads as its reason, in the plain words the assistant card uses.
  const failed = e.event === 'gateway.assistant_failed';
  const said = ending
    ? endLabel({ ...call, state: 'ended', endCause: cause as EndCause, endReason: typeof reason === 'string' ? reason : undefined })
    : failed && typeof reason === 'string'
      ? reason
      : null;
  // A gateway record's command id means nothing to a reader; the API keeps it.
  const others = failed ? {} : ending || e.event.startsWith('gateway.') ? rest : e.payload;
  return (
    <>
      {said && <span className="timeline-said">{said}</span>}
      {Object.keys(others).length > 0 && <code className="timeline-payload">{summarize(others)}</code>}
    </>
  );
}

const summarize = (payload: Record<string, unknown>): string =>
  Object.entries(payload)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ');

function Controls({ call }: { call: Call }) {
  const { busy, error, act } = useCallAction(call.id);
  const group = useRef<HTMLDivElement>(null);
  const hadFocus = useRef(false);
  const ringingIn = call.direction === 'incoming' && call.state === 'ringing';
  const final = FINAL_STATES.has(call.state);
  // A control that goes away with the state (Answer once answered) leaves the focus on the next control, not on the page.
  useEffect(() => {
    if (!hadFocus.current || group.current?.contains(document.activeElement)) return;
    if (document.activeElement === document.body || document.activeElement === null) group.current?.querySelector<HTMLButtonElement>('button')?.focus();
  }, [call.state]);
  return (
    <Card title="Controls" id="controls">
      {final ? (
        <div className="controls">
          <p className="muted">This call is over ({STATE_LABELS[call.state].toLowerCase()}).</p>
          {call.remoteNumber && (
            <Link
              to={`/dialer?to=${encodeURIComponent(call.remoteNumber)}&deviceId=${encodeURIComponent(call.deviceId)}`}
              className="btn btn-primary"
              aria-label={`Call back ${call.remoteNumber}`}
            >
              Call back
            </Link>
          )}
        </div>
      ) : (
        <div
          className="controls"
          role="group"
          aria-label="Call controls"
          ref={group}
          onFocus={() => (hadFocus.current = true)}
          onBlur={(e) => (hadFocus.current = group.current?.contains(e.relatedTarget as Node | null) ?? false)}
        >
          {ringingIn && (
            <>
              <Button variant="success" busy={busy === 'answer'} onClick={() => void act('answer')}>
                Answer
              </Button>
              <Button variant="danger" busy={busy === 'reject'} onClick={() => void act('reject')}>
                Reject
              </Button>
            </>
          )}
          {(call.state === 'active' || call.state === 'held') && (
            // One button for both, so the focus stays on it when the call goes on hold and back.
            <Button
              key="hold"
              variant={call.state === 'held' ? 'primary' : 'secondary'}
              busy={busy === 'hold' || busy === 'unhold'}
              onClick={() => void act(call.state === 'held' ? 'unhold' : 'hold')}
            >
              {call.state === 'held' ? 'Resume' : 'Hold'}
            </Button>
          )}
          {!ringingIn && (
            <Button key="hangup" variant="danger" busy={busy === 'hangup'} onClick={() => void act('hangup')}>
              Hang up
            </Button>
          )}
        </div>
      )}
      <ErrorText error={error} />
    </Card>
  );
}

const KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'];
const LETTERS: Record<string, string> = { '2': 'ABC', '3': 'DEF', '4': 'GHI', '5': 'JKL', '6': 'MNO', '7': 'PQRS', '8': 'TUV', '9': 'WXYZ', '0': '+' };

function Keypad({ call, onSent }: { call: Call; onSent: () => void }) {
  const [sent, setSent] = useState('');
  const [error, setError] = useState<unknown>(null);
  const press = (digit: string) => {
    setError(null);
    api.dtmf(call.id, digit).then(
      () => {
        setSent((s) => (s + digit).slice(-LIMITS.dtmfMaxLength));
        onSent();
      },
      (err: unknown) => setError(err),
    );
  };
  return (
    <Card title="Keypad" id="keypad">
      <div
        className="keypad"
        role="group"
        aria-label="Keypad: press a key, or type digits, * and # while it has focus"
        onKeyDown={(e) => {
          if (/^[0-9*#]$/.test(e.key)) {
            e.preventDefault();
            press(e.key);
          }
        }}
      >
        {KEYS.map((k) => (
          <button key={k} type="button" className="key" onClick={() => press(k)} aria-label={`Tone ${k}`}>
            <span className="key-digit">{k}</span>
            <span className="key-letters" aria-hidden="true">
              {LETTERS[k] ?? '\u00a0'}
            </span>
          </button>
        ))}
      </div>
      <p className="keypad-sent" aria-live="polite">
        {sent ? (
          <>
            Sent: <span className="mono">{sent}</span>
          </>
        ) : (
          <span className="muted">Tones play on the call.</span>
        )}
      </p>
      <ErrorText error={error} />
    </Card>
  );
}

function StreamCard({ call, stream, onChange }: { call: Call; stream: Optional<StreamInfo>; onChange: () => void }) {
  const [url, setUrl] = useState('');
  const [format, setFormat] = useState<StreamFormat>('raw');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const final = FINAL_STATES.has(call.state);
  const attach = (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    api.attachStream(call.id, { url, format }).then(
      () => {
        setBusy(false);
        onChange();
      },
      (err: ApiError) => {
        setBusy(false);
        setError(err);
      },
    );
  };
  const detach = () => {
    setBusy(true);
    setError(null);
    api.detachStream(call.id).then(
      () => {
        setBusy(false);
        onChange();
      },
      (err: ApiError) => {
        setBusy(false);
        setError(err);
      },
    );
  };
  let body;
  if (stream.state === 'loading') body = <Loading />;
  else if (stream.state === 'unavailable') body = <Unavailable what="Streaming" />;
  else if (stream.state === 'error') body = <ErrorText error={stream.error} />;
  else {
    const info = stream.value;
    const attached = info.stream && ['waiting', 'connecting', 'live'].includes(info.status);
    body = (
      <>
        <div className="status-line">
          <LinkBadge status={info.status} />
          {info.stream && <span className="mono break small">{info.stream.url}</span>}
        </div>
        {info.error && <p className="error-text">{info.error}</p>}
        {!final &&
          (attached ? (
            <div className="inline-actions">
              <Button busy={busy} onClick={detach}>
                Detach stream
              </Button>
              <ErrorText error={error} />
            </div>
          ) : (
            <form onSubmit={attach} className="stack compact" noValidate>
              <TextField label="Agent WebSocket URL" placeholder="wss://agent.example.com/voice" value={url} onChange={(e) => setUrl(e.target.value)} error={error?.field('url')} required />
              <SelectField label="Format" value={format} onChange={(e) => setFormat(e.target.value as StreamFormat)} error={error?.field('format')}>
                {STREAM_FORMAT_OPTIONS.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </SelectField>
              <Button type="submit" busy={busy}>
                Attach stream
              </Button>
              {error && !error.issues.length && <ErrorText error={error} />}
            </form>
          ))}
      </>
    );
  }
  return (
    <Card title="Stream" id="stream">
      {body}
    </Card>
  );
}

function AssistantCard({ call, agent, onChange }: { call: Call; agent: Optional<AssistantCallInfo>; onChange: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    work().then(
      () => {
        setBusy(false);
        onChange();
      },
      (err: unknown) => {
        setBusy(false);
        setError(err);
      },
    );
  };
  const final = FINAL_STATES.has(call.state);
  const { settings } = useSettings();
  const keySet = settings?.assistantApiKey.configured ?? false;
  let body;
  if (agent.state === 'loading') body = <Loading />;
  else if (agent.state === 'unavailable') body = <Unavailable what="The assistant" />;
  else if (agent.state === 'error') body = <ErrorText error={agent.error} />;
  else {
    const info = agent.value;
    const onCall = ['waiting', 'connecting', 'live'].includes(info.status);
    body = (
      <>
        <div className="status-line">
          <LinkBadge status={info.status} />
          <span className="muted small">
            {onCall
              ? 'The assistant has the call.'
              : info.status === 'error'
                ? final
                  ? 'The assistant could not take this call.'
                  : `The assistant could not take this call; it is still ${STATE_LABELS[call.state].toLowerCase()}.`
                : info.requested
                  ? 'The assistant was on this call.'
                  : 'The assistant has not been on this call.'}
          </span>
        </div>
        {info.error && (
          <p className="error-text" data-testid="assistant-error">
            {info.error}
          </p>
        )}
        {info.status === 'error' && !final && (
          <p className="small" data-testid="assistant-next-step">
            {call.state === 'ringing' && call.direction === 'incoming' ? 'Answer it yourself, or hand it to the assistant again.' : 'Take it yourself, or hand it to the assistant again.'}{' '}
            <Link to="/assistant#connection">Test the connection</Link>
          </p>
        )}
        {info.message && (
          <div className="message-box">
            <p>
              <strong>{info.message.callerName || 'Caller'}</strong> <UrgencyBadge urgency={info.message.urgency} />
            </p>
            <p>{info.message.reason}</p>
            {info.message.callbackNumber && <p className="muted">Call back: {info.message.callbackNumber}</p>}
          </div>
        )}
        {!final && (
          <div className="inline-actions">
            {onCall ? (
              <Button busy={busy} onClick={() => run(() => api.takeBack(call.id))}>
                Take back from assistant
              </Button>
            ) : keySet ? (
              <Button busy={busy} onClick={() => run(() => api.handToAgent(call.id))}>
                Hand to assistant
              </Button>
            ) : (
              settings && (
                <p className="muted small" data-testid="assistant-needs-key">
                  The assistant needs a model API key to take calls. <Link to="/settings#assistant">Add one in Settings</Link>.
                </p>
              )
            )}
            <ErrorText error={error} />
          </div>
        )}
      </>
    );
  }
  return (
    <Card title="Assistant" id="assistant">
      {body}
    </Card>
  );
}

export function UrgencyBadge({ urgency }: { urgency: 'low' | 'normal' | 'high' }) {
  return <Badge tone={urgency === 'high' ? 'red' : urgency === 'normal' ? 'blue' : 'gray'}>{urgency === 'high' ? 'Urgent' : urgency === 'normal' ? 'Normal' : 'Low'}</Badge>;
}

function TranscriptCard({ transcript, agent }: { transcript: TranscriptLine[]; agent: Optional<AssistantCallInfo> }) {
  const lines = transcript.length > 0 ? transcript : agent.state === 'ok' ? agent.value.transcript : [];
  return (
    <Card title="Transcript" id="transcript">
      {lines.length === 0 ? (
        <p className="muted">{agent.state === 'ok' && agent.value.status === 'error' ? 'No transcript: the assistant could not join this call.' : 'No transcript: the assistant was not on this call.'}</p>
      ) : (
        <ol className="transcript">
          {lines.map((line, i) => (
            <li key={i} className={`bubble bubble-${line.role}`}>
              <span className="bubble-who">{line.role === 'agent' ? 'Assistant' : 'Caller'}</span>
              <span className="bubble-text">{line.text}</span>
              <time dateTime={line.at}>{clockTime(line.at)}</time>
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}
