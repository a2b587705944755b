/**
 * The meetings of a fleet run: Google Meet codes of their own, on an origin nothing serves (the
 * simulated bots never load a page; EXTRA_MEETING_ORIGINS lets the API take it).
 */
export const PLATFORM = 'google_meet';
export const MEETING_ORIGIN = 'http://127.0.0.1:9';

/** A meeting POST /bots took. */
export interface Meeting {
  id: number;
  nativeId: string;
  /** Its user's index. */
  user: number;
}

/** A Google Meet code (xxx-xxxx-xxx) of its own for each number. */
export function meetCode(n: number): string {
  let letters = '';
  for (let rest = n, index = 0; index < 10; index += 1, rest = Math.floor(rest / 26)) {
    letters += String.fromCharCode(97 + (rest % 26));
  }
  return `${letters.slice(0, 3)}-${letters.slice(3, 7)}-${letters.slice(7)}`;
}
