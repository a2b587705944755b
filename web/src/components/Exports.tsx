import type { Api } from '../api/client.js';
import { useAction, Outcome } from './useAction.js';

const FORMATS = [
  ['txt', 'Text'],
  ['srt', 'SubRip (.srt)'],
  ['vtt', 'WebVTT (.vtt)'],
  ['json', 'JSON'],
] as const;

/** The file name the API gives an export (Content-Disposition), else a sensible one. */
function fileNameOf(response: Response, fallback: string): string {
  const match = /filename="([^"]+)"/.exec(response.headers.get('Content-Disposition') ?? '');
  return match?.[1] ?? fallback;
}

/**
 * Downloads the transcript in each format the API writes. The request needs the key header, so
 * the file is fetched here and handed to the browser as a blob: link (the key never goes in a URL).
 */
export function Exports(props: { api: Api; meetingRef: string; baseName: string }) {
  const action = useAction();
  const download = (format: string) =>
    action.run(async () => {
      const response = await props.api.fetch(`/transcripts/${props.meetingRef}?format=${format}`);
      const blob = await response.blob();
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = fileNameOf(response, `${props.baseName}.${format}`);
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      return undefined;
    });
  return (
    <fieldset class="exports">
      <legend class="hint">Export the transcript:</legend>
      {FORMATS.map(([format, label]) => (
        <button
          key={format}
          type="button"
          class="secondary"
          disabled={action.busy}
          onClick={() => download(format)}
        >
          {label}
        </button>
      ))}
      <Outcome action={action} />
    </fieldset>
  );
}
