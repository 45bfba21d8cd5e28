// A button that saves text made in the browser as a file (a Blob behind a download link), for what the
// server shows only once (recovery codes) or what the page already holds.
import { html } from '../lib/html.js';
import { XIcon } from './extra-icons.js';

/** Saves `text` as the file `name` (`type`: its media type). */
export function DownloadButton({ text, name, type = 'text/plain;charset=utf-8', label = 'Download' }) {
  const save = (e) => {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = Object.assign(document.createElement('a'), { href: url, download: name });
    // Inside a modal dialog the rest of the page is inert: the link must live in the dialog to be clicked.
    (e.currentTarget.closest('dialog') ?? document.body).append(a);
    a.click();
    a.remove();
    // The browser reads the blob after the click returns, and a busy one (a loaded Pi, a slow phone) can take
    // more than a second: revoked then, the download fails without a word. A minute is generous and costs
    // only the text's memory.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  };
  return html`<button type="button" class="btn" onClick=${save}><${XIcon} name="download" size=${17} />${label}</button>`;
}
