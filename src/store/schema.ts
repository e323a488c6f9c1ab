import type { Generated } from 'kysely';

/**
 * Row types of every table. Timestamps are ISO 8601 UTC strings, booleans are 0/1 integers and
 * JSON is text on both SQLite and PostgreSQL, so that the domain never sees a dialect difference.
 */
export interface SettingsTable {
  key: string;
  value: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  name: string;
  prefix: string;
  hash: string;
  created_at: string;
  last_used_at: string | null;
}

export interface DevicesTable {
  id: string;
  name: string;
  token_hash: string;
  registered_at: string;
  last_seen_at: string | null;
  latency_ms: number | null;
  /** JSON of the latest health report. */
  health: string | null;
}

/** The latest self-test report of a phone (phone protocol extension 1.3). */
export interface DeviceDiagnosticsTable {
  device_id: string;
  received_at: string;
  /** JSON of the report, without any field named like a credential. */
  report: string;
}

export interface PairingCodesTable {
  code_hash: string;
  public_url: string;
  expires_at: string;
  used_at: string | null;
}

export interface CallsTable {
  id: string;
  device_id: string;
  remote_number: string;
  direction: string;
  state: string;
  native_call_id: string | null;
  webhook_url: string | null;
  /** JSON object. */
  metadata: string | null;
  /** JSON StreamConfig. */
  stream: string | null;
  /** Unique per call (microsecond precision), which makes it a total paging cursor. */
  created_at: string;
  updated_at: string;
  answered_at: string | null;
  ended_at: string | null;
  /** Why it ended (calls/end-cause.ts), once final. */
  end_cause: string | null;
  end_reason: string | null;
  /** When its agent stream was detached (DELETE …/stream): a node taking the call over leaves it closed. */
  stream_detached_at?: string | null;
  /** Since when the built-in assistant holds the call (null: it does not): a node taking the call over puts it back. */
  assistant_at?: string | null;
  /** The phone's name once the phone is removed (its row is gone); null while it is paired. */
  device_name?: string | null;
}

export interface CallEventsTable {
  seq: Generated<number>;
  /** The phone of the call; `(device_id, event_id)` is unique, as each phone names its own events. */
  device_id: string;
  event_id: string;
  call_id: string;
  event: string;
  payload: string;
  occurred_at: string;
  received_at: string;
}

export interface TranscriptLinesTable {
  seq: Generated<number>;
  call_id: string;
  role: string;
  text: string;
  at: string;
}

/** A webhook body waiting for its next attempt; due retries survive a restart. */
export interface WebhookJobsTable {
  id: Generated<number>;
  call_id: string;
  event_id: string;
  event: string;
  url: string;
  body: string;
  /** Number of the next attempt, 1 to 4. */
  attempt: number;
  due_at: string;
  /** The delivery row a person asked to send again (POST /v1/webhook-deliveries/{id}/retry), else null. */
  retry_of: number | null;
  /** The node that makes its attempts (several gateways on PostgreSQL); null on SQLite, or while no node holds it. */
  claimed_by?: string | null;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  call_id: string;
  event_id: string;
  event: string;
  url: string;
  attempt: number;
  ok: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  at: string;
  retry_of: number | null;
  /** The exact body the attempt sent, so it can be sent again; null for attempts made before it was kept. */
  body: string | null;
  /** How a failed attempt ended (the sender's outcome: http_error, timeout, refused, network_error); null when ok or older. */
  error_kind: string | null;
  /** The first bytes of the receiver's answer (at most 1 KiB of text, secrets taken out); null when none came. */
  answer: string | null;
  /** When the next attempt was scheduled by this one; null when none was. */
  next_at: string | null;
  /** 1 on a failed attempt after which the gateway gave up (the last of its delivery). */
  gave_up: Generated<number>;
}

/** A console account; `role` is `owner` (the first account) or `member`. */
export interface UsersTable {
  id: string;
  /** Lower case. */
  email: string;
  /** `scrypt$N$r$p$salt$hash` (base64). */
  password_hash: string;
  role: string;
  created_at: string;
  last_login_at: string | null;
}

/** A console session; the token itself lives only in the browser's cookie. */
export interface SessionsTable {
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
}

/** A message the built-in assistant took; one per call. */
export interface AssistantMessagesTable {
  call_id: string;
  remote_number: string;
  caller_name: string;
  reason: string;
  callback_number: string;
  /** `low`, `normal` or `high`. */
  urgency: string;
  taken_at: string;
  /** When someone marked it read in the console; null while unread. */
  read_at: string | null;
}

/** The task an outgoing call's assistant was given, and the outcome it reported; one per call. */
export interface AssistantTasksTable {
  call_id: string;
  instructions: string;
  voice: string | null;
  /** 1 or 0 (SQLite has no boolean). */
  hang_up_when_done: number;
  given_at: string;
  /** JSON { achieved, summary, facts }; null until the assistant reports. */
  outcome: string | null;
  reported_at: string | null;
}

/** A one-time link to set a new password (`voice-gateway reset-password`); only the token's hash is kept. */
export interface PasswordResetsTable {
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
}

/*
 * PostgreSQL only (several gateways, docs/cluster.md; migration 008), read and written by ClusterRepo.
 * Their times are the database's own (`timestamptz`, set by `now()`), so they stay `Date`s: no node's
 * clock is trusted for a lease.
 */

/** A gateway of the cluster: its address, its lease (`heartbeat_at`) and, once dead, when it was reaped. */
export interface ClusterNodesTable {
  id: string;
  url: string;
  started_at: Generated<Date>;
  heartbeat_at: Generated<Date>;
  reaped_at: Date | null;
  /** SHA-256 of the first run's setup token the node printed, so that any node accepts it. */
  setup_token_hash: string | null;
}

/** Which node holds each phone's socket, and which socket (a newer one replaces it anywhere). */
export interface PhoneConnectionsTable {
  device_id: string;
  node_id: string;
  connection_id: string;
  connected_at: Generated<Date>;
}

/** A live message too large for a NOTIFY: the notification carries its id. */
export interface ClusterMessagesTable {
  id: Generated<number>;
  body: string;
  at: Generated<Date>;
}

/** A failure a shared rate limit counts; `key` is a SHA-256. */
export interface RateLimitFailuresTable {
  id: Generated<number>;
  scope: string;
  key: string;
  at: Generated<Date>;
}

export interface Tables {
  settings: SettingsTable;
  api_keys: ApiKeysTable;
  devices: DevicesTable;
  pairing_codes: PairingCodesTable;
  device_diagnostics: DeviceDiagnosticsTable;
  calls: CallsTable;
  call_events: CallEventsTable;
  transcript_lines: TranscriptLinesTable;
  webhook_jobs: WebhookJobsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  users: UsersTable;
  sessions: SessionsTable;
  assistant_messages: AssistantMessagesTable;
  assistant_tasks: AssistantTasksTable;
  password_resets: PasswordResetsTable;
  cluster_nodes: ClusterNodesTable;
  phone_connections: PhoneConnectionsTable;
  cluster_messages: ClusterMessagesTable;
  rate_limit_failures: RateLimitFailuresTable;
}
