// Package redact keeps credentials that users put in URLs (an API key in the
// query string, a password in the userinfo) out of every message and file
// toolgrade writes.
package redact

import (
	"net/url"
	"strings"
)

// Mask stands in for every value removed.
const Mask = "xxxxx"

// minSecret is the shortest query value also masked where it appears on its
// own in a text (see Text): shorter values ("1", "en") are too likely to
// occur by chance to be replaced everywhere.
const minSecret = 4

// URL returns raw with the password of its userinfo and every query value
// replaced by Mask (query keys and their order are kept, so the URL still
// says which parameters were set). A string that does not parse as a URL with
// a host is returned with everything after the first '?' masked, since it may
// still hold a query.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		if i := strings.IndexByte(raw, '?'); i >= 0 {
			return raw[:i+1] + Mask
		}
		return raw
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), Mask)
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			if k, _, ok := strings.Cut(p, "="); ok {
				parts[i] = k + "=" + Mask
			} else if p != "" {
				parts[i] = Mask // a bare value may be a token
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	return u.String()
}

// Secrets returns the credentials URL masks in raw: the userinfo password
// and the query values, each as written and decoded.
func Secrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []string
	add := func(s string) {
		if len(s) >= minSecret {
			out = append(out, s)
		}
	}
	if p, ok := u.User.Password(); ok {
		add(p)
		add(url.QueryEscape(p))
		add(url.PathEscape(p))
	}
	for _, p := range strings.Split(u.RawQuery, "&") {
		_, v, ok := strings.Cut(p, "=")
		if !ok {
			v = p
		}
		add(v)
		if dec, err := url.QueryUnescape(v); err == nil {
			add(dec)
		}
	}
	return out
}

// Text returns text with every form of the URL raw in it replaced by URL(raw),
// and then any secret of raw still left (a library may print a URL rebuilt
// its own way, or one value alone) replaced by Mask.
func Text(text, raw string) string {
	if raw == "" {
		return text
	}
	safe := URL(raw)
	forms := []string{raw}
	if u, err := url.Parse(raw); err == nil {
		forms = append(forms, u.String(), u.Redacted())
	}
	for _, f := range forms {
		if f != "" && f != safe {
			text = strings.ReplaceAll(text, f, safe)
		}
	}
	for _, s := range Secrets(raw) {
		if !strings.Contains(safe, s) {
			text = strings.ReplaceAll(text, s, Mask)
		}
	}
	return text
}

// Error wraps err so that its message has the URL raw redacted by Text, while
// errors.Is and errors.As still see err. It returns nil for a nil err, and err
// itself when raw holds no credentials.
func Error(err error, raw string) error {
	if err == nil || URL(raw) == raw {
		return err
	}
	return &redacted{err: err, msg: Text(err.Error(), raw)}
}

type redacted struct {
	err error
	msg string
}

func (r *redacted) Error() string { return r.msg }
func (r *redacted) Unwrap() error { return r.err }
