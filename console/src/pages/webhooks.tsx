import { useState, type FormEvent } from 'react';
import { api } from '../api';
import { clockTime, eventLabel, fullTime } from '../format';
import { WebhookIcon } from '../icons';
import { LIMITS } from '../limits';
import { useLive } from '../live';
import { Link, navigate, useLocation, withQuery } from '../router';
import { Badge, Button, Empty, ErrorText, Loading, PageHeader, SelectField, TextField, useLoad } from '../ui';

export function WebhooksPage() {
  const { query } = useLocation();
  const callId = query.get('callId') ?? '';
  const result = query.get('result') ?? '';
  const limit = Number(query.get('limit') ?? LIMITS.pageLimitDefault);
  const { data, error, setData, reload } = useLoad(() => api.deliveries({ callId: callId || undefined, limit }), [callId, limit]);
  const settings = useLoad(() => api.settings(), []);
  const [callInput, setCallInput] = useState(callId);

  useLive((m) => {
    if (m.type !== 'delivery' || (callId && m.delivery.callId !== callId)) return;
    const delivery = m.delivery;
    setData((list) => (!list || list.deliveries.some((d) => d.id === delivery.id) ? list : { deliveries: [delivery, ...list.deliveries].slice(0, limit) }));
  }, reload);

  const go = (params: Record<string, string | undefined>) => navigate(withQuery('/webhooks', { callId, result, limit: limit === LIMITS.pageLimitDefault ? undefined : String(limit), ...params }), { replace: true });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    go({ callId: callInput.trim() || undefined });
  };
  const rows = (data?.deliveries ?? []).filter((d) => !result || (result === 'ok' ? d.ok : !d.ok));
  const webhookUrl = settings.data?.settings.webhookUrl;

  return (
    <>
      <PageHeader
        title="Webhook deliveries"
        description={
          settings.data &&
          (webhookUrl ? (
            <>
              Call events go to <span className="mono">{webhookUrl}</span>, and to the webhook of any call that names its own. Every attempt is a row.
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
        <SelectField label="Result" value={result} onChange={(e) => go({ result: e.target.value || undefined })}>
          <option value="">All attempts</option>
          <option value="ok">Delivered</option>
          <option value="failed">Failed</option>
        </SelectField>
        <SelectField label="Show" value={String(limit)} onChange={(e) => go({ limit: e.target.value === String(LIMITS.pageLimitDefault) ? undefined : e.target.value })}>
          {[50, 100, 200].map((n) => (
            <option key={n} value={n}>
              Latest {n}
            </option>
          ))}
        </SelectField>
        {(callId || result) && (
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
      ) : rows.length === 0 ? (
        <Empty title={callId || result ? 'No deliveries match' : 'No deliveries yet'} icon={<WebhookIcon />}>
          {callId || result ? 'Try other filters.' : 'Each attempt to deliver a call event to a webhook shows up here, live.'}
        </Empty>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <caption className="sr-only">Webhook delivery attempts</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Call</th>
                <th scope="col">Attempt</th>
                <th scope="col">Result</th>
                <th scope="col">URL</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id}>
                  <td data-label="Time">
                    <time dateTime={d.at} title={fullTime(d.at)}>
                      {clockTime(d.at)}
                    </time>
                  </td>
                  <td data-label="Event">{eventLabel(d.event)}</td>
                  <td data-label="Call">
                    <Link to={`/calls/${d.callId}`} className="mono small">
                      {d.callId}
                    </Link>
                  </td>
                  <td data-label="Attempt" className="tabular">
                    {d.attempt} of {LIMITS.webhookAttempts}
                  </td>
                  <td data-label="Result">
                    {d.ok ? <Badge tone="green">Delivered</Badge> : <Badge tone="red">Failed</Badge>} {d.error && <span className="error-inline">{d.error}</span>}
                  </td>
                  <td data-label="URL" className="mono small break">
                    {d.url}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
