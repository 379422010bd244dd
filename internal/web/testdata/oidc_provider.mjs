// A real OpenID Connect provider (the certified npm oidc-provider) for the
// single sign-on tests: one client (Errata), PKCE required, and accounts
// named by their login: <login>@example.com, or <login>@corp.example when
// the login starts with "auto"; "unverified" has email_verified false. It
// prints "listening <issuer>" once ready. Arguments: port, client id,
// client secret, redirect URIs (comma-separated); the npm cache is $ERRATA_NPM_CACHE.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [port, clientId, clientSecret, redirectUris] = process.argv.slice(2);
const entry = path.join(process.env.ERRATA_NPM_CACHE, 'node_modules', 'oidc-provider', 'lib', 'index.js');
const { default: Provider } = await import(pathToFileURL(entry).href);

const issuer = `http://127.0.0.1:${port}`;
const provider = new Provider(issuer, {
  clients: [{
    client_id: clientId, client_secret: clientSecret, redirect_uris: redirectUris.split(","),
    grant_types: ['authorization_code'], response_types: ['code'],
  }],
  pkce: { required: () => true },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  cookies: { keys: ['errata-test-cookie-key'] },
  features: { devInteractions: { enabled: true } },
  async findAccount(ctx, id) {
    const login = String(id);
    const domain = login.startsWith('auto') ? 'corp.example' : 'example.com';
    return {
      accountId: login,
      async claims() {
        return { sub: login, email: `${login}@${domain}`, email_verified: login !== 'unverified', name: `SSO ${login}` };
      },
    };
  },
});
provider.listen(Number(port), '127.0.0.1', () => console.log(`listening ${issuer}`));
