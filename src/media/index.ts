export { CallAudio, MAX_QUEUED_BYTES, MARK_ALLOWANCE, maxPendingMarks, type FrameListener, type MarksFull, type PlayoutSource, type SourceEvents } from './call-audio.js';
export { MediaRouter } from './router.js';
export { MediaSockets } from './media-socket.js';
export { AttachmentKind, CallAttachments, type CallAttachment, type StopReason, type TakeUp } from './attachments.js';
