import { useState } from 'react';
import { api, type ConnectionTest } from '../api';
import { Badge, Button, ErrorText } from '../ui';

/**
 * "Test the connection": a green "Key set" says a key is stored, not that the model takes it. This
 * opens a model session with the stored settings and says what happened, in the words a failed
 * hand-off uses on the call page.
 */
export function ConnectionTestButton() {
  const [state, setState] = useState<{ kind: 'idle' } | { kind: 'busy' } | { kind: 'done'; result: ConnectionTest } | { kind: 'error'; error: unknown }>({ kind: 'idle' });
  const run = () => {
    setState({ kind: 'busy' });
    api.testAgentConnection().then(
      (result) => setState({ kind: 'done', result }),
      (error: unknown) => setState({ kind: 'error', error }),
    );
  };
  return (
    <div className="connection-test" id="connection">
      <Button size="sm" busy={state.kind === 'busy'} onClick={run}>
        Test the connection
      </Button>
      {state.kind === 'done' && (
        <p role="status" className="connection-result" data-ok={state.result.ok}>
          {state.result.ok ? <Badge tone="green">Connected</Badge> : <Badge tone="red">Not connected</Badge>} <span className="break">{state.result.message}</span>
          <span className="muted small"> ({state.result.durationMs} ms)</span>
        </p>
      )}
      {state.kind === 'error' && <ErrorText error={state.error} />}
    </div>
  );
}
