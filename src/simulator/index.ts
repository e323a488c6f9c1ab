export { PhoneSimulator } from './phone-simulator.js';
export { SimulatedPhoneConnection } from './phone-connection.js';
export { GatewayRequestError, pairDevice, endpointUrl, type PhoneCredentials, type PairRequest } from './gateway-http.js';
export {
  readStamp,
  writeStamp,
  epochNow,
  STAMP_BYTES,
  toneSource,
  pcmLoopSource,
  type AudioSpec,
  type AudioSource,
  type FrameStamp,
} from './audio-source.js';
export { parseWav, loadWav, encodeWav, type WavInfo } from './wav.js';
export { FrameClock } from './frame-clock.js';
export type { ReceivedStats } from './audio-recorder.js';
export { decideCommand, type SimCall, type CommandDecision, type CommandEffect } from './commands.js';
export {
  PHONE_EVENT_NAMES,
  type PhoneEventName,
  type PhoneCallState,
  type Direction,
  type DisconnectCause,
  type CommandAction,
  type Health,
  type SimInfo,
  type HelloMessage,
  type HealthMessage,
  type AckMessage,
  type EventMessage,
  type PhoneMessage,
  type WelcomeMessage,
  type CommandMessage,
  type EventAckMessage,
  type GatewayErrorMessage,
  type GatewayMessage,
} from './protocol.js';
export type {
  PhoneSimulatorOptions,
  PhoneSimulatorEvents,
  PhoneSimulatorEventName,
  DialOutcome,
  AckBehaviour,
  SimulatorLogger,
  SimCallChange,
} from './types.js';
export { runPhoneCommand, PHONE_USAGE } from './cli.js';
