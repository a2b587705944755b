import { useState } from 'preact/hooks';
import { type Api, ApiError } from '../api/client.js';
import type { Meeting } from '../api/types.js';
import { type BotField, fieldOfError } from '../field-errors.js';
import { parseMeetingLink } from '../meeting-link.js';
import { LANGUAGES } from './languages.js';

type Errors = Partial<Record<BotField, string>>;

export function SendBot(props: { api: Api; onSent(meeting: Meeting): void }) {
  const [link, setLink] = useState('');
  const [botName, setBotName] = useState('');
  const [language, setLanguage] = useState('');
  const [recording, setRecording] = useState(true);
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const [sentNote, setSentNote] = useState<string>();

  const submit = async (event: Event) => {
    event.preventDefault();
    setSentNote(undefined);
    const parsed = parseMeetingLink(link);
    if ('error' in parsed) return setErrors({ link: parsed.error });
    setErrors({});
    setBusy(true);
    try {
      const body: Record<string, unknown> = { ...parsed, recording_enabled: recording };
      if (botName.trim()) body.bot_name = botName.trim();
      if (language.trim()) body.language = language.trim();
      const meeting = await props.api.request<Meeting>('POST', '/bots', body);
      props.onSent(meeting);
      setLink('');
      setSentNote(`Bot sent to ${meeting.native_meeting_id}.`);
    } catch (failure) {
      const message =
        failure instanceof ApiError ? failure.message : `Could not send the bot: ${String(failure)}`;
      setErrors({ [failure instanceof ApiError ? fieldOfError(message) : 'form']: message });
    } finally {
      setBusy(false);
    }
  };

  const described = (field: BotField, hint?: string) => ({
    'aria-invalid': errors[field] ? ('true' as const) : undefined,
    'aria-describedby': errors[field] ? `send-${field}-error` : hint,
  });
  const error = (field: BotField) =>
    errors[field] && (
      <p id={`send-${field}-error`} class="error" role="alert">
        {errors[field]}
      </p>
    );

  return (
    <section class="card" aria-labelledby="send-title">
      <h2 id="send-title">Send a bot</h2>
      <form onSubmit={submit} noValidate>
        <label for="send-link">Meeting link</label>
        <input
          id="send-link"
          type="url"
          inputMode="url"
          autocomplete="off"
          placeholder="https://meet.google.com/abc-defg-hij"
          value={link}
          onInput={(event) => setLink(event.currentTarget.value)}
          {...described('link', 'send-link-hint')}
          required
        />
        <p id="send-link-hint" class="hint">
          A Google Meet or Microsoft Teams link (Teams links carry their passcode).
        </p>
        {error('link')}

        <label for="send-name">Bot name</label>
        <input
          id="send-name"
          autocomplete="off"
          placeholder="The service's default"
          maxLength={100}
          value={botName}
          onInput={(event) => setBotName(event.currentTarget.value)}
          {...described('bot_name')}
        />
        {error('bot_name')}

        <label for="send-language">Language</label>
        <input
          id="send-language"
          list="send-languages"
          autocomplete="off"
          placeholder="Detect automatically"
          value={language}
          onInput={(event) => setLanguage(event.currentTarget.value)}
          {...described('language', 'send-language-hint')}
        />
        <datalist id="send-languages">
          {LANGUAGES.map(([code, name]) => (
            <option key={code} value={code}>
              {name}
            </option>
          ))}
        </datalist>
        <p id="send-language-hint" class="hint">
          A code such as en or de; leave empty to let the bot detect it.
        </p>
        {error('language')}

        <div class="check">
          <input
            id="send-recording"
            type="checkbox"
            checked={recording}
            onChange={(event) => setRecording(event.currentTarget.checked)}
          />
          <label for="send-recording">Record the meeting's audio</label>
        </div>
        {error('form')}
        <button type="submit" disabled={busy}>
          {busy ? 'Sending…' : 'Send bot'}
        </button>
        {sentNote && (
          <p class="notice" role="status">
            {sentNote}
          </p>
        )}
      </form>
    </section>
  );
}
