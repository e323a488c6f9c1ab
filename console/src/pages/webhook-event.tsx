import { useState } from 'react';
import { api } from '../api';
import { clockTime, eventLabel, fullTime } from '../format';
import { Link } from '../router';
import type { WebhookDelivery, WebhookEventDelivery } from '../types';
import { Badge, Button, ErrorText } from '../ui';

/** Why an attempt failed, in words: the kind the gateway recorded, else the raw error of an older row. */
export function attemptReason(a: WebhookDelivery): string {
  if (a.ok) return `Delivered (HTTP ${a.statusCode ?? '2xx'})`;
  switch (a.errorKind) {
    case 'http_error':
      return `The receiver answered HTTP ${a.statusCode ?? '?'}`;
    case 'timeout':
      return 'No answer within 10 s';
    case 'refused':
      return `Not sent: ${a.error ?? 'the gateway refused the address'}`;
    case 'network_error':
      return a.error?.includes('ECONNREFUSED')
        ? 'The connection was refused'
        : a.error?.includes('ENOTFOUND')
          ? 'The host name was not found'
          : `The connection failed: ${a.error ?? 'network error'}`;
    default:
      return a.error ?? 'Failed';
  }
}

const ms = (n: number): string => (n >= 1000 ? `${(n / 1000).toFixed(1)} s` : `${n} ms`);

/** The state of an event's delivery in a few words. */
function StateBadge({ e }: { e: WebhookEventDelivery }) {
  const made = e.attempts.filter((a) => a.retryOf === e.attempts.at(-1)?.retryOf).length;
  switch (e.state) {
    case 'delivered':
      return <Badge tone="green">Delivered</Badge>;
    case 'retrying':
      return (
        <Badge tone="amber">
          Retrying: attempt {e.nextAttempt ?? made + 1} of {e.maxAttempts} at {e.nextAttemptAt ? clockTime(e.nextAttemptAt) : 'once due'}
        </Badge>
      );
    case 'gave_up':
      return (
        <Badge tone="red">
          Gave up after {e.attempts.at(-1)?.attempt ?? made} of {e.maxAttempts}
        </Badge>
      );
    default:
      return <Badge tone="red">Failed</Badge>;
  }
}

function AttemptItem({ a, max }: { a: WebhookDelivery; max: number }) {
  return (
    <li data-delivery-id={a.id} data-ok={a.ok} className="attempt">
      <span className="attempt-head">
        <span className="mono small">#{a.id}</span> · {a.attempt} of {max} ·{' '}
        <time dateTime={a.at} title={fullTime(a.at)}>
          {clockTime(a.at)}
        </time>{' '}
        · {ms(a.durationMs)}
        {a.retryOf !== undefined && <span className="muted small"> · sent again from #{a.retryOf}</span>}
      </span>
      <span className={a.ok ? 'attempt-reason' : 'attempt-reason error-inline'}>{attemptReason(a)}</span>
      {!a.ok && a.answer ? (
        <span className="attempt-answer">
          <span className="muted small">Its answer: </span>
          <code className="break">{a.answer}</code>
        </span>
      ) : null}
      {a.gaveUp && (
        <span className="small">
          <strong>
            Gave up after {a.attempt} of {max}
          </strong>
          : no attempt follows unless it is sent again.
        </span>
      )}
      {a.nextAttemptAt && !a.ok && (
        <span className="muted small">
          {' '}
          Next attempt due at{' '}
          <time dateTime={a.nextAttemptAt} title={fullTime(a.nextAttemptAt)}>
            {clockTime(a.nextAttemptAt)}
          </time>
        </span>
      )}
    </li>
  );
}

/** One event delivered to one URL: its state, each attempt with its reason, one Retry. */
export function EventRow({ e }: { e: WebhookEventDelivery }) {
  const [state, setState] = useState<{ kind: 'idle' } | { kind: 'busy' } | { kind: 'scheduled' } | { kind: 'error'; error: unknown }>({ kind: 'idle' });
  const last = e.attempts.at(-1);
  const retry = () => {
    setState({ kind: 'busy' });
    api.retryDelivery(e.lastAttemptId).then(
      () => setState({ kind: 'scheduled' }),
      (error: unknown) => setState({ kind: 'error', error }),
    );
  };
  return (
    <tr data-event-id={e.eventId} data-state={e.state} data-last-attempt-id={e.lastAttemptId}>
      <td data-label="Time">
        {last && (
          <time dateTime={last.at} title={fullTime(last.at)}>
            {clockTime(last.at)}
          </time>
        )}
      </td>
      <td data-label="Event">
        {eventLabel(e.event)}
        <span className="event-url mono small muted break">{e.url}</span>
      </td>
      <td data-label="Call">
        <Link to={`/calls/${e.callId}`} className="mono small">
          {e.callId}
        </Link>
      </td>
      <td data-label="Result">
        <StateBadge e={e} />
      </td>
      <td data-label="Attempts" className="attempts-cell">
        <ol className="attempts" aria-label={`Attempts of ${eventLabel(e.event)}`}>
          {e.attempts.map((a) => (
            <AttemptItem key={a.id} a={a} max={e.maxAttempts} />
          ))}
        </ol>
      </td>
      <td className="actions-cell">
        {e.state !== 'retrying' && e.attempts.some((a) => !a.ok) &&
          (state.kind === 'scheduled' ? (
            <span className="saved" role="status">
              ✓ Sent again
            </span>
          ) : (
            <Button size="sm" busy={state.kind === 'busy'} onClick={retry} aria-label={`Retry: send ${eventLabel(e.event)} of ${e.callId} again`}>
              Retry
            </Button>
          ))}
        {state.kind === 'error' && <ErrorText error={state.error} />}
      </td>
    </tr>
  );
}
