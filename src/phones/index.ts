export { DeviceService, APP_SCHEME, qrSvg, QrTooLargeError, type Device, type Pairing, type PairRequest } from './devices.js';
export { PhoneHub, type PhoneEventSink, type PhoneHubOptions } from './hub.js';
export { THIS_GATEWAY, type PhoneDirectory } from './directory.js';
export { PhoneSockets } from './sockets.js';
export { MemoryFailureLimiter, rateLimited, type FailureLimiter, type FailureLimiterFactory } from './rate-limit.js';
export { DiagnosticsReport, isSecretName, withoutSecrets, DIAGNOSTICS_MAX_BYTES, type StoredDiagnostics } from './diagnostics.js';
export { HealthReport, CLOSE_REPLACED, CLOSE_REVOKED, type Command, type DtmfMessage, type HelloMessage, type PhoneEvent } from './protocol.js';
export { PhoneAudioPort, type PhoneFrameReceiver } from './audio-port.js';
export { SimInfo, SimList, SimSlot, SIM_NOT_SUPPORTED, SIM_UNAVAILABLE, simRefusal } from './sims.js';
