"""Egress: which destinations a crawl may connect to, on every path out (no module state).

- ``policy``: the pure part (no Scrapy or Twisted imports): address classes, the allow list,
  :class:`~gatecrawl.egress.policy.EgressPolicy` and its decisions, the pin table of vetted
  addresses, the start URLs a run may admit;
- ``runtime``: :class:`~gatecrawl.egress.runtime.Egress`, the one runtime object per crawler
  (policy, pins, the browser's proxy), found with ``egress_for(crawler)``;
- ``middleware``: ``EgressMiddleware``, the HTTP path's check (first downloader middleware);
- ``resolver``: ``EgressResolver``, the reactor's DNS resolver that answers with pinned addresses;
- ``proxy``: ``EgressProxy``, the local forward proxy Chromium is launched behind;
- ``offline``: ``OfflineSuffixListAddon``, keeps Scrapy's cookie middleware off the network.

Importing this package imports nothing: the adapters are loaded by the settings that name them.
"""
