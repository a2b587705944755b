import { useState } from 'preact/hooks';

export interface Action {
  busy: boolean;
  error: string | undefined;
  done: string | undefined;
  run(task: () => Promise<string | undefined>): Promise<void>;
}

/** One button's request: busy while it runs, then its outcome (the API's error or a short note). */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [done, setDone] = useState<string>();
  return {
    busy,
    error,
    done,
    async run(task) {
      setBusy(true);
      setError(undefined);
      setDone(undefined);
      try {
        setDone(await task());
      } catch (failure) {
        setError((failure as Error).message);
      } finally {
        setBusy(false);
      }
    },
  };
}

export function Outcome(props: { action: Action; id?: string }) {
  const { error, done } = props.action;
  if (error)
    return (
      <p id={props.id} class="error" role="alert">
        {error}
      </p>
    );
  if (done)
    return (
      <p id={props.id} class="notice" role="status">
        {done}
      </p>
    );
  return null;
}
