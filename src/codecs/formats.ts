/**
 * The wire formats of call audio: `raw` (the gateway's own, also the media socket's) and `vendor`
 * (Twilio Media Streams). The one list: the config, the settings, the API's schemas and the console
 * read it. Pure, without Node's types, so the browser build can import it.
 */
export const STREAM_FORMATS = ['raw', 'vendor'] as const;
export type StreamFormat = (typeof STREAM_FORMATS)[number];
