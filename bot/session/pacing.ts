/** How often the bot looks at the page, and how long it gives the pre-join form. */
export interface Pacing {
  prejoinMs: number;
  lobbyMs: number;
  callMs: number;
  /**
   * How long the pre-join form may go without a step not taken before (the name, a switch, the join
   * button) before the page is judged unusable: a slow page that keeps moving is given its time.
   */
  prejoinStuckMs: number;
  /** How long the pre-join form may take in all, however it moves. */
  prejoinLimitMs: number;
}

export const DEFAULT_PACING: Pacing = {
  prejoinMs: 600,
  lobbyMs: 500,
  callMs: 1000,
  prejoinStuckMs: 90_000,
  prejoinLimitMs: 180_000,
};
