export { StreamManager, type StreamInfo } from './manager.js';
export { AgentStream, type StreamStatus } from './agent-stream.js';
export { CallStream } from './call-stream.js';
