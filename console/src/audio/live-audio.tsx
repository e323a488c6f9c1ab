import { useEffect, useRef, useState } from 'react';
import type { Call, MediaInfo } from '../types';
import { Badge, Button, Card, ErrorText } from '../ui';
import { takeCallAudio, useStartedAudio } from './call-audio';
import { MediaSession, type MediaCallbacks, type MediaStatus } from './media-session';

/** What a failed start of talking means to a person. */
const micProblem = (err: unknown): unknown => (err instanceof DOMException && err.name === 'NotAllowedError' ? 'The browser did not allow the microphone: you can listen, not talk.' : err);

function Meter({ label, level }: { label: string; level: number }) {
  return (
    <div className="meter-row">
      <span className="meter-label">{label}</span>
      <div className="meter" role="meter" aria-label={`${label} level`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(level * 100)}>
        <div className="meter-fill" style={{ clipPath: `inset(0 ${(100 - level * 100).toFixed(1)}% 0 0)` }} />
      </div>
    </div>
  );
}

const STATUS_LABEL: Record<MediaStatus, string> = { idle: 'Not connected', connecting: 'Connecting…', live: 'Live', ended: 'Ended', error: 'Error' };

/** Listen to the call and talk into it from the browser, over the media WebSocket. */
export function LiveAudio({ call, media }: { call: Call; media: MediaInfo }) {
  const session = useRef<MediaSession | null>(null);
  const [status, setStatus] = useState<MediaStatus>('idle');
  const [detail, setDetail] = useState<string | null>(null);
  const [remote, setRemote] = useState(0);
  const [mic, setMic] = useState(0);
  const [speaker, setSpeaker] = useState(true);
  const [talking, setTalking] = useState(false);
  const [error, setError] = useState<unknown>(null);

  useEffect(
    () => () => {
      void session.current?.close();
      session.current = null;
    },
    [],
  );

  const callbacks: MediaCallbacks = {
    onStatus: (st, text) => {
      setStatus(st);
      setDetail(text ?? null);
      if (st === 'ended' || st === 'error') {
        setTalking(false);
        session.current = null;
      }
    },
    onRemoteLevel: setRemote,
    onMicLevel: setMic,
  };

  // Audio the ringing toast's "Answer" began for this call: this panel takes it over.
  const startedVersion = useStartedAudio();
  useEffect(() => {
    if (session.current) return;
    const started = takeCallAudio(call.id);
    if (!started) return;
    const s = started.session;
    session.current = s;
    s.setCallbacks(callbacks);
    setStatus(s.status);
    setDetail(s.detail ?? null);
    setTalking(s.talking);
    // Talking may still wait for the microphone's permission.
    void started.ready.then(() => {
      if (session.current !== s) return;
      setTalking(s.talking);
      if (started.error) setError(micProblem(started.error));
    });
    // Runs whenever audio is begun for a call; `callbacks` only closes over state setters.
  }, [startedVersion, call.id]);

  const supported = typeof AudioWorkletNode !== 'undefined' && typeof WebSocket !== 'undefined';
  const connected = status === 'connecting' || status === 'live';

  const connect = () => {
    setError(null);
    setDetail(null);
    const s = new MediaSession(media.path, callbacks);
    session.current = s;
    s.start().catch((err: unknown) => {
      setStatus('error');
      setError(err);
      void s.close();
      session.current = null;
    });
  };

  const disconnect = () => {
    void session.current?.close();
    session.current = null;
    setStatus('idle');
    setTalking(false);
  };

  const toggleTalk = () => {
    const next = !talking;
    setError(null);
    session.current?.setTalking(next).then(
      () => setTalking(next),
      (err: unknown) => setError(micProblem(err)),
    );
  };

  return (
    <Card
      title="Live audio"
      id="live-audio"
      actions={<Badge tone={status === 'live' ? 'green' : status === 'error' ? 'red' : status === 'connecting' ? 'amber' : 'gray'}>{STATUS_LABEL[status]}</Badge>}
    >
      {!supported ? (
        <p className="muted">This browser cannot play live audio (it lacks Web Audio worklets).</p>
      ) : (
        <>
          <p className="muted small">
            Hear {call.remoteNumber || 'the caller'} in this browser and speak into the call from your microphone.{' '}
            {!media.streaming && call.state !== 'active' && 'Audio flows once the call is active.'}
          </p>
          <div className="audio-controls">
            {!connected ? (
              <Button variant="primary" onClick={connect}>
                Listen
              </Button>
            ) : (
              <>
                <Button onClick={disconnect}>Stop listening</Button>
                <Button
                  aria-pressed={!speaker}
                  onClick={() => {
                    session.current?.setSpeaker(!speaker);
                    setSpeaker(!speaker);
                  }}
                >
                  {speaker ? 'Mute speaker' : 'Unmute speaker'}
                </Button>
                <Button variant={talking ? 'danger' : 'secondary'} aria-pressed={talking} onClick={toggleTalk} disabled={status !== 'live'}>
                  {talking ? 'Stop talking' : 'Talk'}
                </Button>
              </>
            )}
          </div>
          <Meter label="Caller" level={remote} />
          <Meter label="Microphone" level={mic} />
          {detail && <p className={status === 'error' ? 'error-text' : 'muted small'}>{detail}</p>}
          <ErrorText error={error} />
        </>
      )}
    </Card>
  );
}
