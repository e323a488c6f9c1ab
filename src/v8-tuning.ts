import { setFlagsFromString } from 'node:v8';

/*
 * Imported first by every entry point (src/main.ts, src/cli.ts, and the bench's processes), so the
 * flag holds before anything is allocated.
 *
 * V8's allocation-site pretenuring moves an allocation site's objects straight into the old
 * generation once most of them survived a young collection. A gateway meets that condition in its
 * first seconds (many phones and calls starting while audio already flows), and from then on the
 * objects of every socket read (the chunk, the frame, the message) are born old: the old generation
 * grows by about 2 MB per young collection, each young collection takes 4 to 7 ms instead of under
 * one, and a full collection follows every second or two. Those pauses were the gateway's latency
 * tail under load (docs/performance.md, "The latency tail was the garbage collector"). The phone
 * simulator caught the same, with a full collection every half second. Audio frames live for
 * milliseconds, so neither has anything to gain from pretenuring.
 */
setFlagsFromString('--no-allocation-site-pretenuring');
