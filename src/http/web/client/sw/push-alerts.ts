declare const self: ServiceWorkerGlobalScope;

/** What an alert's push message carries (the server's pushPayload). */
interface AlertPush {
  title: string;
  body: string;
  url: string;
  tag?: string;
}

function parse(data: PushMessageData | null): AlertPush | undefined {
  try {
    const value = data?.json() as Partial<AlertPush> | undefined;
    if (typeof value?.title !== 'string' || typeof value.url !== 'string') return undefined;
    return { title: value.title, body: String(value.body ?? ''), url: value.url, tag: value.tag };
  } catch {
    return undefined;
  }
}

/**
 * Alerts by Web Push: each message becomes a notification (browsers require one per push);
 * clicking it opens the page it is about, in a window of the site already open if there is one.
 * Only pages of this origin are opened, whatever a message says.
 */
export function handleAlertPushes(): void {
  self.addEventListener('push', (event) => {
    const alert = parse(event.data);
    event.waitUntil(
      self.registration.showNotification(alert?.title ?? 'emutrack', {
        body: alert?.body ?? '',
        tag: alert?.tag,
        data: { url: alert?.url ?? '/' },
        icon: '/favicon.ico',
      }),
    );
  });
  self.addEventListener('notificationclick', (event) => {
    event.notification.close();
    const wanted = new URL(
      String((event.notification.data as { url?: string } | null)?.url ?? '/'),
      self.location.origin,
    );
    const url = wanted.origin === self.location.origin ? wanted.href : self.location.origin + '/';
    event.waitUntil(
      self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then(async (windows) => {
        const open = windows.find((w) => w.url === url);
        if (open) return open.focus();
        await self.clients.openWindow(url);
        return undefined;
      }),
    );
  });
}
