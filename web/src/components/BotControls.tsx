import { useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import type { ChatMessage } from '../api/types.js';
import { timeOfDay } from '../format.js';
import { Outcome, useAction } from './useAction.js';

/** A one-field form that posts its text and clears it once the API took it. */
function TextCommand(props: {
  id: string;
  label: string;
  button: string;
  maxLength: number;
  multiline?: boolean;
  send(text: string): Promise<string>;
}) {
  const [text, setText] = useState('');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    if (!text.trim()) return;
    void action.run(async () => {
      const note = await props.send(text.trim());
      setText('');
      return note;
    });
  };
  const field = {
    id: props.id,
    maxLength: props.maxLength,
    value: text,
    'aria-describedby': `${props.id}-outcome`,
    onInput: (event: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) =>
      setText(event.currentTarget.value),
  };
  return (
    <form class="inline-form" onSubmit={submit} noValidate>
      <label for={props.id}>{props.label}</label>
      <div class="row">
        {props.multiline ? <textarea rows={2} {...field} /> : <input autocomplete="off" {...field} />}
        <button type="submit" disabled={action.busy || !text.trim()}>
          {props.button}
        </button>
      </div>
      <Outcome action={action} id={`${props.id}-outcome`} />
    </form>
  );
}

/** What an active bot can be asked: another language, to say something, to write in the chat. */
export function BotControls(props: { api: Api; meetingRef: string }) {
  const base = `/bots/${props.meetingRef}`;
  return (
    <section class="card" aria-labelledby="bot-title">
      <h2 id="bot-title">The bot</h2>
      <TextCommand
        id="bot-language"
        label="Change the transcription language (code, e.g. en)"
        button="Change language"
        maxLength={35}
        send={async (language) => {
          await props.api.request('PUT', `${base}/config`, { language });
          return `Language changed to ${language} for what is said from now on.`;
        }}
      />
      <TextCommand
        id="bot-speak"
        label="Make the bot say"
        button="Speak"
        maxLength={2000}
        multiline
        send={async (text) => {
          await props.api.request('POST', `${base}/speak`, { text });
          return 'The bot will say it.';
        }}
      />
      <TextCommand
        id="bot-chat"
        label="Write in the meeting chat"
        button="Send to chat"
        maxLength={500}
        send={async (text) => {
          await props.api.request('POST', `${base}/chat`, { text });
          return 'Sent to the chat.';
        }}
      />
    </section>
  );
}

export function ChatLog(props: { messages: ChatMessage[] }) {
  if (props.messages.length === 0) return null;
  return (
    <section class="card" aria-labelledby="chat-title">
      <h2 id="chat-title">Meeting chat</h2>
      <ol class="chat">
        {props.messages.map((message) => (
          <li key={message.id} class={message.is_from_bot ? 'from-bot' : undefined}>
            <time dateTime={message.sent_at}>{timeOfDay(message.sent_at)}</time>{' '}
            <strong>{message.sender}</strong>: {message.text}
          </li>
        ))}
      </ol>
    </section>
  );
}
