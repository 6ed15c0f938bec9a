/**
 * The subscribe page's "this browser" button (data-alert-push): shown only where the browser
 * has service workers and Push; asks for permission, subscribes with the server's VAPID key and
 * sends the subscription to the API with the page's own session (same origin).
 */
async function subscribe(kind: string, code: string): Promise<boolean> {
  if ((await Notification.requestPermission()) !== 'granted') return false;
  const key = await fetch('/api/v2/auth/subscriptions/vapid-key', { credentials: 'same-origin' });
  if (!key.ok) return false;
  const answer = (await key.json()) as { data: { publicKey: string } };
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.subscribe({
    userVisibleOnly: true,
    // The key as base64url text: PushManager.subscribe takes it so.
    applicationServerKey: answer.data.publicKey,
  });
  const put = await fetch('/api/v2/auth/subscriptions', {
    method: 'PUT',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind, code, channel: 'webpush', subscription: subscription.toJSON() }),
  });
  return put.ok;
}

export function enableAlertPush(doc: Document): void {
  const box = doc.querySelector<HTMLElement>('[data-alert-push]');
  if (!box || !('serviceWorker' in navigator) || !('PushManager' in window)) return;
  const button = box.querySelector('button');
  if (!button) return;
  box.hidden = false;
  button.addEventListener('click', () => {
    button.disabled = true;
    subscribe(box.dataset.kind ?? '', box.dataset.code ?? '').then(
      (ok) => {
        box.textContent = (ok ? box.dataset.done : box.dataset.failed) ?? '';
      },
      () => {
        box.textContent = box.dataset.failed ?? '';
      },
    );
  });
}
