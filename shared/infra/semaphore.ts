/** Gives its place back; calling it again does nothing. */
export type Release = () => void;

/**
 * A process-wide bound on how many of something run at once (searches holding pool connections):
 * `acquire` takes a place, or waits for one in arrival order, at most `waitMs`. A freed place goes
 * straight to the longest waiter, so nobody who arrives later can take it first.
 */
export class Semaphore {
  #free: number;
  readonly #waiters: Array<{ grant: (release: Release) => void }> = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error('a semaphore needs at least one place');
    this.#free = size;
  }

  /** Places taken now. */
  get inUse(): number {
    return this.size - this.#free;
  }

  /** Callers waiting for a place now. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /** A place (its release), or undefined when none came free within `waitMs`. */
  acquire(waitMs: number): Promise<Release | undefined> {
    if (this.#free > 0) {
      this.#free -= 1;
      return Promise.resolve(this.#release());
    }
    return new Promise((resolve) => {
      const waiter = {
        grant: (release: Release) => {
          clearTimeout(timer);
          resolve(release);
        },
      };
      const timer = setTimeout(() => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        resolve(undefined);
      }, waitMs);
      this.#waiters.push(waiter);
    });
  }

  #release(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters.shift();
      // The place passes on without ever being free, so a new caller can't slip in between.
      if (next) next.grant(this.#release());
      else this.#free += 1;
    };
  }
}
