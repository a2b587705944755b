import { useEffect, useState } from 'preact/hooks';
import { ApiError, checkKey } from '../api/client.js';

export function SignIn(props: { notice: string | undefined; onSignedIn(key: string): void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Sign in · Meetbot';
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    const trimmed = key.trim();
    if (!trimmed) return setError('Enter your API key');
    setBusy(true);
    setError(undefined);
    try {
      await checkKey(trimmed);
      props.onSignedIn(trimmed);
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.status === 401
          ? 'This key is not accepted'
          : `Could not sign in: ${(failure as Error).message}`,
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card narrow" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in</h1>
      {props.notice && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      <form onSubmit={submit} noValidate>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'api-key-error' : 'api-key-hint'}
          required
        />
        <p id="api-key-hint" class="hint">
          Kept in this browser tab only, until you sign out or close it.
        </p>
        {error && (
          <p id="api-key-error" class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </section>
  );
}
