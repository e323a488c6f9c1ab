import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, type DeliveryFilters } from '../api';
import { useSettings } from '../context';
import { eventLabel } from '../format';
import { WebhookIcon } from '../icons';
import { LIMITS } from '../limits';
import { useLive } from '../live';
import { Link, navigate, useLocation, withQuery } from '../router';
import { EVENT_NAMES, type WebhookDelivery } from '../types';
import { Button, Empty, ErrorText, Loading, PageHeader, Pager, SelectField, TextField, useLoad } from '../ui';
import { EventRow } from './webhook-event';

/** The log's filters as the URL keeps them; `result` is the API's `ok` in words. */
function filtersOf(query: URLSearchParams) {
  const result = query.get('result') ?? '';
  const before = Number(query.get('before') ?? '');
  return {
    callId: query.get('callId') ?? '',
    event: query.get('event') ?? '',
    result,
    limit: Number(query.get('limit') ?? LIMITS.pageLimitDefault),
    before: Number.isInteger(before) && before > 0 ? before : undefined,
  };
}

export function WebhooksPage() {
  const { query } = useLocation();
  const f = filtersOf(query);
  const request: DeliveryFilters = {
    callId: f.callId || undefined,
    event: f.event || undefined,
    ok: f.result === 'ok' ? 'true' : f.result === 'failed' ? 'false' : undefined,
    before: f.before,
    limit: f.limit,
  };
  const key = JSON.stringify(request);
  const { data, error, reload, loading } = useLoad(() => api.deliveries(request), [key]);
  const { settings } = useSettings();
  const [callInput, setCallInput] = useState(f.callId);

  const matches = (d: WebhookDelivery) => (!request.callId || d.callId === request.callId) && (!request.event || d.event === request.event) && (!request.ok || String(d.ok) === request.ok);
  // A new attempt changes its event's row (state, next attempt): the first page is read again, at most
  // every 300 ms however many attempts a busy gateway makes.
  const pendingReload = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(pendingReload.current), []);
  useLive((m) => {
    if (m.type !== 'delivery' || f.before || !matches(m.delivery) || pendingReload.current !== undefined) return;
    pendingReload.current = setTimeout(() => {
      pendingReload.current = undefined;
      void reload();
    }, 300);
  }, reload);

  const go = (params: Record<string, string | undefined>, keepPage = false) => {
    const next = { callId: f.callId, event: f.event, result: f.result, limit: f.limit === LIMITS.pageLimitDefault ? undefined : String(f.limit), ...(keepPage ? {} : { before: undefined }), ...params };
    navigate(withQuery('/webhooks', next), { replace: !('before' in params) });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    go({ callId: callInput.trim() || undefined });
  };
  const filtered = Boolean(f.callId || f.event || f.result);
  const webhookUrl = settings?.webhookUrl;

  return (
    <>
      <PageHeader
        title="Webhook deliveries"
        description={
          settings &&
          (webhookUrl ? (
            <>
              Call events go to <span className="mono">{webhookUrl}</span>, and to the webhook of any call that names its own. Each event is a row, with its attempts inside.
            </>
          ) : (
            <>
              No default webhook is set: only calls that name their own webhook send events. <Link to="/settings#addresses">Set one in Settings</Link>.
            </>
          ))
        }
      />
      <div className="filters" role="search" aria-label="Filter deliveries">
        <form onSubmit={submit} className="inline-form">
          <TextField label="Call" placeholder="call_…" value={callInput} onChange={(e) => setCallInput(e.target.value)} />
          <Button type="submit">Filter</Button>
        </form>
        <SelectField label="Event" value={f.event} onChange={(e) => go({ event: e.target.value || undefined })}>
          <option value="">All events</option>
          {EVENT_NAMES.map((name) => (
            <option key={name} value={name}>
              {eventLabel(name)}
            </option>
          ))}
        </SelectField>
        <SelectField label="Result" value={f.result} onChange={(e) => go({ result: e.target.value || undefined })}>
          <option value="">All results</option>
          <option value="ok">Had a delivered attempt</option>
          <option value="failed">Had a failed attempt</option>
        </SelectField>
        <SelectField label="Per page" value={String(f.limit)} onChange={(e) => go({ limit: e.target.value === String(LIMITS.pageLimitDefault) ? undefined : e.target.value })}>
          {[50, 100, 200].map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </SelectField>
        {filtered && (
          <Button
            variant="ghost"
            size="sm"
            className="filters-clear"
            onClick={() => {
              setCallInput('');
              navigate('/webhooks', { replace: true });
            }}
          >
            Clear filters
          </Button>
        )}
      </div>
      {error ? (
        <ErrorText error={error} />
      ) : !data ? (
        <Loading />
      ) : data.events.length === 0 ? (
        <Empty title={filtered || f.before ? 'No deliveries match' : 'No deliveries yet'} icon={<WebhookIcon />}>
          {filtered ? 'Try other filters.' : 'Each attempt to deliver a call event to a webhook shows up here, live.'}
        </Empty>
      ) : (
        <div className={`table-wrap ${loading ? 'is-loading' : ''}`}>
          <table className="table deliveries-table">
            <caption className="sr-only">Webhook deliveries, one row per event with its attempts</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Call</th>
                <th scope="col">Result</th>
                <th scope="col">Attempts</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.events.map((e) => (
                <EventRow key={`${e.eventId} ${e.url}`} e={e} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && (
        <Pager
          key={JSON.stringify({ ...request, before: undefined })}
          label="Pages of deliveries"
          before={f.before}
          nextBefore={data.nextBefore}
          go={(cursor) => go({ before: cursor?.toString() }, true)}
        />
      )}
    </>
  );
}
