import { useEffect, useRef } from 'preact/hooks';

/** Runs `task` now and every `intervalMs` while the tab is visible (again at once when it shows again). */
export function usePolling(task: () => Promise<void> | void, intervalMs: number, deps: unknown[]): void {
  const latest = useRef(task);
  latest.current = task;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const tick = async () => {
      timer = undefined;
      if (document.visibilityState === 'visible') {
        try {
          await latest.current();
        } catch {
          // the task shows its own errors; keep polling
        }
      }
      if (!stopped) timer = setTimeout(tick, intervalMs);
    };
    const visible = () => {
      if (document.visibilityState === 'visible' && timer !== undefined) {
        clearTimeout(timer);
        void tick();
      }
    };
    void tick();
    document.addEventListener('visibilitychange', visible);
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      document.removeEventListener('visibilitychange', visible);
    };
  }, deps);
}
