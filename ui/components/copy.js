// A button that copies text to the clipboard and says so.
import { html, useState } from '../lib/html.js';
import { Icon } from './icons.js';

export function CopyButton({ text, label = 'Copy' }) {
  const [done, setDone] = useState(false);
  const copy = async (e) => {
    // Inside a modal dialog the rest of the page is inert: the fallback textarea must live in the dialog.
    const host = e.currentTarget.closest('dialog') ?? document.body;
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Without clipboard permission (plain http on a LAN address), fall back to a selection copy.
      const ta = Object.assign(document.createElement('textarea'), { value: text });
      host.append(ta);
      ta.select();
      document.execCommand('copy');
      ta.remove();
    }
    setDone(true);
    setTimeout(() => setDone(false), 2000);
  };
  return html`<button type="button" class="btn" onClick=${copy}><${Icon} name=${done ? 'check' : 'copy'} />${done ? 'Copied' : label}</button>`;
}
