/** An error whose message is safe to show to the caller, mapped to the spec's `{ "error": "..." }` body. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  constructor(message: string) {
    super(400, message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Unauthorized') {
    super(401, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Forbidden') {
    super(403, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'Not found') {
    super(404, message);
  }
}

export class NotAcceptableError extends AppError {
  constructor(message: string, headers: Record<string, string> = {}) {
    super(406, message, headers);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, message);
  }
}

export class PayloadTooLargeError extends AppError {
  /** `hint` says what to send instead, for routes whose bodies carry media. */
  constructor(limitBytes: number, hint?: string) {
    super(413, `Request body too large (limit ${limitBytes} bytes)${hint ? `; ${hint}` : ''}`);
  }
}

export class TooManyRequestsError extends AppError {
  constructor(message: string, headers: Record<string, string> = {}) {
    super(429, message, headers);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message: string) {
    super(503, message);
  }
}

/** The exact strings of the spec's error table (section 7). */
export const SpecErrors = {
  invalidMeetingId: 'Invalid meeting ID format',
  unauthorized: 'Unauthorized',
  tooManyBots: 'Too many concurrent bots',
  botNotFound: 'Bot not found',
  meetingNotFound: 'Meeting not found',
} as const;
