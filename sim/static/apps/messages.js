// Messages — placeholder until the app lands (it registers so the launcher shows it).
import { html, registerApp, Screen, Empty } from '../os.js';

registerApp({
  id: 'messages', label: 'Messages', pkg: 'com.android.messaging', icon: '💬', color: '#1967d2',
  root: { s: 'main', p: {} },
  screens: { main: () => Screen({ title: 'Messages', up: false, body: Empty('Coming soon') }) },
  dialogs: {},
  activity: () => 'com.android.messaging/.ui.conversationlist.ConversationListActivity',
});
