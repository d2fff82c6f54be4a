// A live phone for a person: load state from the server, sync it back after every change.
export async function start(phoneId) {
  const S2R = window.S2R;
  const res = await fetch(`/api/phones/${encodeURIComponent(phoneId)}/state`);
  if (!res.ok) { document.body.textContent = `No phone ${phoneId}`; return; }
  S2R.load(await res.json());
  let pending = null;
  S2R.onChange = () => {
    clearTimeout(pending);
    pending = setTimeout(() => {
      fetch(`/api/phones/${encodeURIComponent(phoneId)}/state`, { method: 'PUT', body: JSON.stringify(S2R.state) });
    }, 150);
  };
  // a person's clock: one simulated second per second
  setInterval(() => S2R.tick(1), 1000);
  // keyboard shortcuts for people at a desktop: Esc = back
  window.addEventListener('keydown', (e) => { if (e.key === 'Escape') S2R.key('back'); });
}
