package proxy

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// guard decides who may call the proxy: Ollama's two checks, read from its
// server (the gin-contrib/cors middleware with AllowOrigins from
// envconfig.AllowedOrigins, then allowedHostsMiddleware, for a server bound
// to loopback), stricter where a proxy that runs tools must be.
//
//   - Origin: a request with none (the ollama CLI, SDKs, curl) passes; one
//     whose Origin is its own scheme and Host (same origin) passes to the
//     host check; any other passes only if allowed, else 403 with an empty
//     body. Ollama allows loopback origins on every port and app://, file://,
//     tauri://, vscode-webview:// and vscode-file:// by default; the proxy
//     allows loopback origins on its own port only, and the rest when given.
//   - Host: loopback addresses, the unspecified address, localhost and
//     names under .localhost pass, and the names given; any other is 403
//     (DNS rebinding). Ollama also lets in .local and .internal names,
//     private addresses and this machine's other addresses; a proxy that
//     listens on loopback only is reached by none of them honestly.
type guard struct {
	any       bool        // "*" given: every origin
	exact     []string    // allowed origins, lower case
	wildcards [][2]string // prefix and suffix around an origin's one "*"
	hosts     []string    // Host names allowed beside the loopback ones, lower case
	// who names the server in its refusals: "the proxy", or the viewer.
	who string
	// noCORS: no origin can be allowed (Guard's servers take none).
	noCORS bool
}

// corsHint says how another origin could be let in, where one can.
func (g *guard) corsHint() string {
	if g.noCORS {
		return ""
	}
	return ", or from an origin given to --cors-origin or OLLAMA_ORIGINS"
}

func newGuard(origins, hosts []string) (*guard, error) {
	g := &guard{who: "the proxy"}
	for _, o := range origins {
		o = strings.ToLower(strings.TrimSpace(o))
		if err := CheckOrigin(o); err != nil {
			return nil, err
		}
		switch i := strings.IndexByte(o, '*'); {
		case o == "*":
			g.any = true
		case i >= 0:
			g.wildcards = append(g.wildcards, [2]string{o[:i], o[i+1:]})
		default:
			g.exact = append(g.exact, o)
		}
	}
	for _, h := range hosts {
		if h = strings.ToLower(strings.Trim(strings.TrimSpace(h), "[]")); h != "" {
			g.hosts = append(g.hosts, h)
		}
	}
	return g, nil
}

// CheckOrigin reports whether o can be an allowed origin, with Ollama's
// rules (which refuse to start on a bad one): "*", a pattern with one "*",
// or an origin of scheme http, https or a browser extension's.
func CheckOrigin(o string) error {
	o = strings.TrimSpace(o)
	switch {
	case o == "":
		return errors.New(`an empty origin: give one as scheme://host[:port], e.g. http://localhost:3000`)
	case strings.Count(o, "*") > 1:
		return fmt.Errorf("origin %q: only one * is allowed (e.g. http://localhost:* or https://*.example.com)", o)
	case strings.Contains(o, "*"):
		return nil
	}
	for _, s := range originSchemes {
		if strings.HasPrefix(strings.ToLower(o), s) {
			return nil
		}
	}
	return fmt.Errorf("origin %q: must start with http:// or https:// (or a browser extension's scheme), or hold a * (e.g. app://*)", o)
}

// originSchemes are the schemes an exact origin may have, as Ollama's CORS
// configuration accepts them (AllowBrowserExtensions).
var originSchemes = []string{
	"http://", "https://",
	"chrome-extension://", "safari-extension://", "moz-extension://", "ms-browser-extension://",
}

// ParseOrigins reads OLLAMA_ORIGINS as Ollama does: spaces and quotes
// around the whole value trimmed, then split at commas. Each entry is
// checked; the first bad one is the error.
func ParseOrigins(env string) ([]string, error) {
	env = strings.Trim(strings.TrimSpace(env), `"'`)
	if env == "" {
		return nil, nil
	}
	var out []string
	for _, o := range strings.Split(env, ",") {
		if err := CheckOrigin(o); err != nil {
			return nil, err
		}
		out = append(out, strings.TrimSpace(o))
	}
	return out, nil
}

// verdict is what the guard decided for one request.
type verdict struct {
	// refused says why the request gets 403; "" lets it in.
	refused string
	// cors: a cross-origin request let in, to be answered with CORS headers.
	cors bool
}

// check decides for r, in Ollama's order: the origin, then the host.
func (g *guard) check(r *http.Request) verdict {
	var v verdict
	if origin := r.Header.Get("Origin"); origin != "" && origin != "http://"+r.Host && origin != "https://"+r.Host {
		if !g.originAllowed(origin, localPort(r)) {
			return verdict{refused: fmt.Sprintf("origin %q is not allowed: a browser page may call %s only from its own address%s", origin, g.who, g.corsHint())}
		}
		v.cors = true
	}
	if !g.hostAllowed(r.Host) {
		return verdict{refused: fmt.Sprintf("host %q is not a loopback name or address (DNS rebinding?): call %s as localhost or 127.0.0.1, or allow the name with --allow-host", r.Host, g.who)}
	}
	return v
}

// originAllowed reports whether a cross-origin caller may call: one given,
// or one of Ollama's default loopback origins on the port the request came
// in on (a page the proxy itself could have served).
func (g *guard) originAllowed(origin, port string) bool {
	o := strings.ToLower(origin)
	if g.any || slices.Contains(g.exact, o) {
		return true
	}
	for _, w := range g.wildcards {
		if strings.HasPrefix(o, w[0]) && strings.HasSuffix(o, w[1]) && len(o) >= len(w[0])+len(w[1]) {
			return true
		}
	}
	u, err := url.Parse(o)
	if err != nil || port == "" || u.Path != "" || u.User != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	p := u.Port()
	if p == "" {
		p = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return p == port && slices.Contains(loopbackOrigins, u.Hostname())
}

// loopbackOrigins are the hosts of the origins Ollama allows by default
// (envconfig.AllowedOrigins), which the proxy allows on its own port.
var loopbackOrigins = []string{"localhost", "127.0.0.1", "0.0.0.0"}

// hostAllowed reports whether a request's Host names this machine's
// loopback, or a name given.
func (g *guard) hostAllowed(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	return host == "" || loopbackHost(host) || slices.Contains(g.hosts, host)
}

// loopbackHost: localhost, a name under .localhost (RFC 6761 keeps them on
// loopback), a loopback address, or the unspecified one (which reaches
// loopback when dialled, as Ollama allows it).
func loopbackHost(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// localPort is the port of the proxy's address the request came in on;
// "" when it is unknown (a handler called directly).
func localPort(r *http.Request) string {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return ""
	}
	_, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return ""
	}
	return port
}

// Guard is serve's origin and host rules (see guard) around another of
// toolgrade's loopback servers (view), named who in its refusals ("the
// viewer"): a request from a foreign Origin, or to a Host that is no
// loopback name nor one of hosts, gets 403 with the reason and never
// reaches h. It allows no origin beyond serve's defaults, and none can be
// given.
func Guard(h http.Handler, who string, hosts []string) http.Handler {
	g, _ := newGuard(nil, hosts) // no origins: nothing to refuse
	g.who, g.noCORS = who, true
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := g.check(r); v.refused != "" {
			http.Error(w, v.refused, http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}
