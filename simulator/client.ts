import type { BotState } from './bot-state.js';
import type { CreateMeetingInput } from './schema.js';
import type { MeetingSnapshot } from './snapshot.js';

export type { BotState } from './bot-state.js';
export type { CreateMeetingInput } from './schema.js';
export type { BotSnapshot, MeetingSnapshot, ParticipantSnapshot, UtteranceSnapshot } from './snapshot.js';

/** An error answer from the control API, with its status and message. */
export class SimulatorApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: unknown,
  ) {
    super(`simulator API ${status}: ${message}`);
    this.name = 'SimulatorApiError';
  }
}

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/** A typed client of the control API (see control.ts) for tests, the bot's tests and scripts. */
export class SimulatorClient {
  readonly baseUrl: string;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  createMeeting(input: CreateMeetingInput): Promise<MeetingSnapshot> {
    return this.request('POST', '/api/meetings', input);
  }

  async listMeetings(): Promise<MeetingSnapshot[]> {
    const body = await this.request<{ meetings: MeetingSnapshot[] }>('GET', '/api/meetings');
    return body.meetings;
  }

  getMeeting(id: string): Promise<MeetingSnapshot> {
    return this.request('GET', `/api/meetings/${encodeURIComponent(id)}`);
  }

  async deleteMeeting(id: string): Promise<void> {
    await this.request('DELETE', `/api/meetings/${encodeURIComponent(id)}`);
  }

  admit(id: string): Promise<MeetingSnapshot> {
    return this.action(id, 'admit');
  }

  deny(id: string): Promise<MeetingSnapshot> {
    return this.action(id, 'deny');
  }

  removeBot(id: string): Promise<MeetingSnapshot> {
    return this.action(id, 'remove-bot');
  }

  endMeeting(id: string): Promise<MeetingSnapshot> {
    return this.action(id, 'end');
  }

  everyoneLeaves(id: string): Promise<MeetingSnapshot> {
    return this.action(id, 'everyone-leaves');
  }

  /** Polls the meeting until `predicate` holds; the timeout error shows the last snapshot's bot. */
  async waitFor(
    id: string,
    predicate: (meeting: MeetingSnapshot) => boolean,
    description: string,
    { timeoutMs = 30_000, intervalMs = 200 }: WaitOptions = {},
  ): Promise<MeetingSnapshot> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const meeting = await this.getMeeting(id);
      if (predicate(meeting)) return meeting;
      if (Date.now() > deadline) {
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for ${description}; bot: ${JSON.stringify(meeting.bot)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }

  waitForBotState(id: string, state: BotState, options?: WaitOptions): Promise<MeetingSnapshot> {
    return this.waitFor(id, (m) => m.bot.state === state, `bot state ${state}`, options);
  }

  /** Waits until every utterance has finished one way or another (played, missed or cut). */
  waitForSpeechDone(id: string, options?: WaitOptions): Promise<MeetingSnapshot> {
    return this.waitFor(
      id,
      (m) => m.utterances.every((u) => ['played', 'missed', 'cut'].includes(u.status)),
      'all utterances to finish',
      options,
    );
  }

  /** The account's session cookie stops signing in (a sign-in-only meeting's `access.accounts`). */
  expireAccount(id: string, accountName: string): Promise<MeetingSnapshot> {
    return this.request(
      'POST',
      `/api/meetings/${encodeURIComponent(id)}/accounts/${encodeURIComponent(accountName)}/expire`,
    );
  }

  private action(id: string, name: string): Promise<MeetingSnapshot> {
    return this.request('POST', `/api/meetings/${encodeURIComponent(id)}/${name}`);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as unknown) : undefined;
    if (!response.ok) {
      const error = parsed as { error?: string; details?: unknown } | undefined;
      throw new SimulatorApiError(response.status, error?.error ?? text, error?.details);
    }
    return parsed as T;
  }
}
