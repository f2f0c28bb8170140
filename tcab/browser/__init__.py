"""The browser toolkit: headless Chromium started and fenced by tcab, and
what seeding and validation do with it.

    chromium       start Debian's Chromium in its own process group, fenced to
                   one port, under a watchdog (BrowserUnavailable when it cannot)
    site_server    serve a folder on 127.0.0.1: regular files inside it only
    page           check a built site (load, errors, screenshots): check_page,
                   BrowserLimits, Check
    mockup         render an HTML mockup to a PNG: MockupSession, MockupLimits
    mockup_cache   rendered mockups kept by content (build/mockup-cache/)
    renderer       the browser's and the fonts' fingerprint, for cache keys

It sits below seeding and validation (tests/core/test_import_graph.py) and
raises its own ``BrowserError`` (tcab.errors): seeding re-raises a mockup's
as a ``SeedError``. Nothing is imported here: Playwright and the rest load
with the module that needs them.
"""
