// Phone — placeholder until the app lands (it registers so the launcher shows it).
import { html, registerApp, Screen, Empty } from '../os.js';

registerApp({
  id: 'phone', label: 'Phone', pkg: 'com.android.dialer', icon: '📞', color: '#188038',
  root: { s: 'main', p: {} },
  screens: { main: () => Screen({ title: 'Phone', up: false, body: Empty('Coming soon') }) },
  dialogs: {},
  activity: () => 'com.android.dialer/.main.impl.MainActivity',
});
