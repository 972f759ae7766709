"""``web_fetch(url, prompt?)``: fetch one web page as text (HTML converted to Markdown).

``guard`` refuses private addresses at connect time (SSRF), ``fetch`` speaks HTTP (bounded
redirects, timeout, byte cap, no credentials), ``convert`` turns the body into text, ``tool`` is
the spec. The permission decision (by the URL's host) is ``axon_cli.policy.web``.
"""
