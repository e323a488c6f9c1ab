import { useEffect, useState, type FormEvent } from 'react';
import { dialableSearch } from '../../../src/calls/dialable.js';
import { api } from '../api';
import { useDevices } from '../context';
import { ago, deviceName, duration, endLabel, fullTime, STATE_LABELS } from '../format';
import { IncomingIcon, OutgoingIcon } from '../icons';
import { LIMITS } from '../limits';
import { useLive, useLiveStatus } from '../live';
import { Link, navigate, useLocation, withQuery } from '../router';
import { CALL_STATES, FINAL_STATES, type Call } from '../types';
import { Button, Empty, ErrorText, Loading, PageHeader, Pager, SelectField, StateBadge, TextField, useLoad, useNow } from '../ui';

const PAGE_SIZE = LIMITS.pageLimitDefault;

/** Midnight at the start of a `YYYY-MM-DD` day in this browser's time zone, as an ISO instant; `days` moves it. */
function dayStart(day: string, days = 0): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return undefined;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + days).toISOString();
}

/** Without the separators people type, as the API compares numbers. */
const digitsOf = (number: string): string => number.replace(/[\s\-\u2010-\u2015\u2212./()]/g, '');

export function CallsPage() {
  const { query } = useLocation();
  const { devices } = useDevices();
  const filters = {
    deviceId: query.get('deviceId') ?? undefined,
    state: query.get('state') ?? undefined,
    direction: query.get('direction') ?? undefined,
    number: query.get('number') ?? undefined,
    from: query.get('from') ?? undefined,
    to: query.get('to') ?? undefined,
  };
  const before = query.get('before') ?? undefined;
  // The date range: strictly after the moment before `from` began, and before the day after `to` (or the page's cursor).
  const after = filters.from ? new Date(Date.parse(dayStart(filters.from) ?? '') - 1).toISOString() : undefined;
  const until = filters.to ? dayStart(filters.to, 1) : undefined;
  const search = filters.number ? (dialableSearch(filters.number) ?? undefined) : undefined;
  const key = JSON.stringify({ ...filters, before });
  const { data, error, loading, reload, setData } = useLoad(
    () => api.calls({ deviceId: filters.deviceId, state: filters.state, direction: filters.direction, remoteNumber: search, after, before: before ?? until, limit: PAGE_SIZE }),
    [key],
  );
  const [numberInput, setNumberInput] = useState(filters.number ?? '');
  const [numberError, setNumberError] = useState<string | undefined>();
  const [flash, setFlash] = useState<Record<string, number>>({});
  const [filtersOpen, setFiltersOpen] = useState(false);
  const live = useLiveStatus();
  const now = useNow(1000);

  const matches = (call: Call) =>
    (!filters.deviceId || call.deviceId === filters.deviceId) &&
    (!filters.state || call.state === filters.state) &&
    (!filters.direction || call.direction === filters.direction) &&
    (!search || digitsOf(call.remoteNumber).includes(search)) &&
    (!after || call.createdAt > after) &&
    (!until || call.createdAt < until);

  useLive((m) => {
    if (m.type !== 'call') return;
    const call = m.call;
    setData((page) => {
      if (!page) return page;
      if (page.calls.some((c) => c.id === call.id)) {
        return { ...page, calls: page.calls.filter((c) => c.id !== call.id || matches(call)).map((c) => (c.id === call.id ? call : c)) };
      }
      if (before || !matches(call)) return page;
      const calls = [call, ...page.calls];
      return { calls: calls.slice(0, PAGE_SIZE), nextBefore: calls.length > PAGE_SIZE ? (calls[PAGE_SIZE - 1]?.createdAt ?? null) : page.nextBefore };
    });
    setFlash((f) => ({ ...f, [call.id]: Date.now() }));
  }, reload);

  useEffect(() => {
    const t = window.setTimeout(() => setFlash({}), 1600);
    return () => window.clearTimeout(t);
  }, [flash]);

  const setFilter = (name: string, value: string) => {
    navigate(withQuery('/calls', { ...filters, [name]: value || undefined }), { replace: true });
  };
  const activeFilters = [filters.deviceId, filters.state, filters.direction, filters.number, filters.from, filters.to].filter(Boolean).length;
  const filtered = activeFilters > 0;
  const searchNumber = (e: FormEvent) => {
    e.preventDefault();
    const text = numberInput.trim();
    if (text && dialableSearch(text) === null) {
      setNumberError('Search with digits, +, * or #; spaces, dashes and brackets are fine.');
      return;
    }
    setNumberError(undefined);
    setFilter('number', text);
  };

  return (
    <>
      <PageHeader
        title="Calls"
        description={
          live === 'open' ? (
            'Every call of every phone, newest first. Rows change as the calls do.'
          ) : (
            <span className="not-live" role="status">
              Not live: the gateway cannot be reached{live === 'connecting' ? ' (reconnecting…)' : ''}. These rows are as they were last loaded and may be out of date.
            </span>
          )
        }
        actions={
          <Link to="/dialer" className="btn btn-primary">
            New call
          </Link>
        }
      />
      {/* On a phone the filters fold behind one button, so the first call is on the first screen. */}
      <Button
        className="filters-toggle"
        aria-expanded={filtersOpen}
        aria-controls="call-filters"
        onClick={() => setFiltersOpen((v) => !v)}
      >
        {filtersOpen ? 'Hide filters' : filtered ? `Filters (${activeFilters})` : 'Filters'}
      </Button>
      <div className={`filters ${filtersOpen ? 'open' : ''}`} id="call-filters" role="search" aria-label="Filter calls">
        <SelectField label="Phone" value={filters.deviceId ?? ''} onChange={(e) => setFilter('deviceId', e.target.value)}>
          <option value="">All phones</option>
          {devices.map((d) => (
            <option key={d.id} value={d.id}>
              {d.name}
            </option>
          ))}
        </SelectField>
        <SelectField label="State" value={filters.state ?? ''} onChange={(e) => setFilter('state', e.target.value)}>
          <option value="">Any state</option>
          {CALL_STATES.map((s) => (
            <option key={s} value={s}>
              {STATE_LABELS[s]}
            </option>
          ))}
        </SelectField>
        <SelectField label="Direction" value={filters.direction ?? ''} onChange={(e) => setFilter('direction', e.target.value)}>
          <option value="">Both directions</option>
          <option value="incoming">Incoming</option>
          <option value="outgoing">Outgoing</option>
        </SelectField>
        <form onSubmit={searchNumber} className="inline-form" role="search" aria-label="Search by number">
          <TextField label="Number" type="search" inputMode="tel" placeholder="+49 151…" value={numberInput} onChange={(e) => setNumberInput(e.target.value)} error={numberError} />
          <Button type="submit">Search</Button>
        </form>
        <TextField label="From" type="date" value={filters.from ?? ''} max={filters.to} onChange={(e) => setFilter('from', e.target.value)} />
        <TextField label="To" type="date" value={filters.to ?? ''} min={filters.from} onChange={(e) => setFilter('to', e.target.value)} />
        {filtered && (
          <Button
            variant="ghost"
            size="sm"
            className="filters-clear"
            onClick={() => {
              setNumberInput('');
              setNumberError(undefined);
              navigate('/calls', { replace: true });
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
      ) : data.calls.length === 0 ? (
        filtered || before ? (
          <Empty title="No calls match these filters" action={<Button onClick={() => navigate('/calls', { replace: true })}>Show all calls</Button>} />
        ) : (
          <Empty
            title="No calls yet"
            icon="☎"
            action={
              <Link to="/dialer" className="btn btn-primary">
                Place a call
              </Link>
            }
          >
            Calls appear here as soon as a phone dials or rings — place one from the dialer, or call one of your phones.
          </Empty>
        )
      ) : (
        <div className={`table-wrap ${loading ? 'is-loading' : ''}`}>
          <table className="table calls-table">
            <caption className="sr-only">Calls</caption>
            <thead>
              <tr>
                <th scope="col">Number</th>
                <th scope="col">State</th>
                <th scope="col">Outcome</th>
                <th scope="col">Phone</th>
                <th scope="col">Started</th>
                <th scope="col">Duration</th>
              </tr>
            </thead>
            <tbody>
              {data.calls.map((call) => (
                <tr key={call.id} className={flash[call.id] ? 'flash' : ''} data-call-id={call.id} data-state={call.state}>
                  <td data-label="Number">
                    <Link to={`/calls/${call.id}`} className="row-link">
                      <span className={`direction direction-${call.direction}`} title={call.direction === 'incoming' ? 'Incoming' : 'Outgoing'}>
                        {call.direction === 'incoming' ? <IncomingIcon /> : <OutgoingIcon />}
                        <span className="sr-only">{call.direction}</span>
                      </span>
                      <span className="number">{call.remoteNumber || 'Unknown'}</span>
                    </Link>
                  </td>
                  <td data-label="State">
                    <StateBadge state={call.state} />
                  </td>
                  <td data-label="Outcome" className="outcome">
                    {endLabel(call) ?? <span className="muted">—</span>}
                  </td>
                  <td data-label="Phone">{deviceName(devices, call.deviceId, call)}</td>
                  <td data-label="Started">
                    <time dateTime={call.createdAt} title={fullTime(call.createdAt)}>
                      {ago(call.createdAt, now)}
                    </time>
                  </td>
                  <td data-label="Duration" className="tabular">
                    {callDuration(call, now)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {data && (
        <Pager
          key={JSON.stringify(filters)}
          label="Pages of calls"
          before={before}
          nextBefore={data.nextBefore}
          go={(cursor) => navigate(withQuery('/calls', { ...filters, before: cursor }))}
        />
      )}
    </>
  );
}

export function callDuration(call: Call, now: number): string {
  if (!call.answeredAt) return FINAL_STATES.has(call.state) ? '—' : '';
  const end = call.endedAt ? Date.parse(call.endedAt) : FINAL_STATES.has(call.state) ? Date.parse(call.updatedAt) : now;
  return duration(end - Date.parse(call.answeredAt));
}
