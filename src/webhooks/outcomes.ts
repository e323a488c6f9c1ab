/**
 * The webhooks' enumerations, pure so that the API's schemas (and the browser build) read the same
 * lists the dispatcher writes.
 */

/** How a failed attempt ended (a delivery row's `errorKind`): see ATTEMPT_OUTCOMES. */
export const ERROR_KINDS = ['http_error', 'timeout', 'refused', 'network_error'] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/**
 * How an attempt ended, for /metrics: delivered (`ok`), answered with another status (`http_error`),
 * no answer in time (`timeout`), not sent because the gateway refused the address or the URL
 * (`refused`), or the connection failed (`network_error`).
 */
export const ATTEMPT_OUTCOMES = ['ok', ...ERROR_KINDS] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** Where one event's delivery to one URL stands (the webhook log's rows; see event-log.ts). */
export const EVENT_DELIVERY_STATES = ['delivered', 'retrying', 'gave_up', 'failed'] as const;
export type EventDeliveryState = (typeof EVENT_DELIVERY_STATES)[number];
