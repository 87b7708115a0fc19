// Menus and popovers close as people expect: Escape (focus goes back to what opened them)
// and a click anywhere else.
export interface Dismissable {
  /** The menu and its opener: clicks inside it do not close it. */
  root: HTMLElement;
  /** Where focus returns after Escape. */
  opener: HTMLElement;
  isOpen(): boolean;
  close(): void;
}

export function dismissable(menu: Dismissable): void {
  const listeners: [string, (event: Event) => void][] = [
    [
      "keydown",
      (event) => {
        if ((event as KeyboardEvent).key !== "Escape" || !menu.isOpen()) return;
        menu.close();
        menu.opener.focus();
      },
    ],
    [
      "pointerdown",
      (event) => {
        if (menu.isOpen() && !menu.root.contains(event.target as Node)) menu.close();
      },
    ],
  ];
  for (const [type, listener] of listeners) {
    document.addEventListener(type, function handle(event) {
      // A menu gone from the page stops listening.
      if (!menu.root.isConnected) return document.removeEventListener(type, handle);
      listener(event);
    });
  }
}
