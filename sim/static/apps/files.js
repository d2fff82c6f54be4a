// Files — placeholder until the app lands (it registers so the launcher shows it).
import { html, registerApp, Screen, Empty } from '../os.js';

registerApp({
  id: 'files', label: 'Files', pkg: 'com.android.documentsui', icon: '📁', color: '#f29900',
  root: { s: 'main', p: {} },
  screens: { main: () => Screen({ title: 'Files', up: false, body: Empty('Coming soon') }) },
  dialogs: {},
  activity: () => 'com.android.documentsui/.files.FilesActivity',
});
