export { CallAudio, MAX_QUEUED_BYTES, MARK_ALLOWANCE, maxPendingMarks, type FrameListener, type MarkPlayed } from './call-audio.js';
export { MediaRouter } from './router.js';
export { MediaSockets } from './media-socket.js';
