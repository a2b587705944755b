/** An error the control API reports as `{ "error": message }` with this HTTP status. */
export class SimulatorError extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 422 | 500 | 503,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'SimulatorError';
  }
}

export const notFound = (what: string) => new SimulatorError(404, `${what} not found`);
export const conflict = (message: string) => new SimulatorError(409, message);
