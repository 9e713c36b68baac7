"""SPA shells: the server sends a bundle and an empty root; the content needs the browser."""

from __future__ import annotations

from bench.junkgen.base import Page
from bench.junkgen.chrome import bare, h, tag

K = "spa_shell"


def _bundles(seed: str, names) -> str:
    return "\n".join(f'<script src="/static/js/{n}.{tag(seed + n)}.js" defer></script>' for n in names)


def pages() -> list[Page]:
    out: list[Page] = []

    def add(slug, html, url, note="", lang="en", near=False):
        out.append(Page(K, slug, html, url, "shell_page", lang=lang, note=note, near_miss=near))

    # 1 create-react-app style
    add("react-cra-dashboard", bare(
        "Orders · Tallyhq",
        '<noscript>You need to enable JavaScript to run this app.</noscript>\n<div id="root"></div>',
        head=f'<link rel="manifest" href="/manifest.json"><link rel="icon" href="/favicon.ico">\n'
             f'<link href="/static/css/main.{tag("cra-css")}.css" rel="stylesheet">\n' + _bundles("cra", ["runtime-main", "2", "main"])),
        "https://app.tallyhq.example/orders/4411", "create-react-app build: noscript + empty #root")

    # 2 Vue CLI
    add("vue-cli-catalog", bare(
        "Katalog – Möbelhaus Lindqvist",
        '<noscript><strong>Diese Seite funktioniert leider nicht ohne JavaScript. Bitte aktivieren Sie es, um fortzufahren.</strong></noscript>\n<div id="app"></div>',
        lang="de", head=f'<link href="/css/app.{tag("vuecss")}.css" rel="preload" as="style">'
                        f'<link href="/js/chunk-vendors.{tag("vcv")}.js" rel="preload" as="script">\n' + _bundles("vue", ["chunk-vendors", "app"])),
        "https://www.moebel-lindqvist.example/katalog/sofas", "Vue CLI build, German noscript", lang="de")

    # 3 Angular
    add("angular-portal", bare(
        "CitizenPortal",
        '<app-root></app-root>\n<script src="runtime.' + tag("ng1") + '.js" type="module"></script>'
        '<script src="polyfills.' + tag("ng2") + '.js" type="module"></script><script src="main.' + tag("ng3") + '.js" type="module"></script>',
        head='<base href="/"><link rel="stylesheet" href="styles.' + tag("ngcss") + '.css" media="print" onload="this.media=\'all\'">'
             '<style>body{margin:0;font-family:Roboto,"Helvetica Neue",sans-serif}</style>'),
        "https://portal.citizens.example/services/permits", "Angular CLI: <app-root> only")

    # 4 Next.js client-only page, __NEXT_DATA__ with empty props
    nd = ('{"props":{"pageProps":{}},"page":"/account/[section]","query":{"section":"billing"},"buildId":"'
          + tag("nextbuild", 21) + '","nextExport":true,"autoExport":true,"isFallback":false,"scriptLoader":[]}')
    add("next-client-only", bare(
        "Billing",
        '<div id="__next"><div class="app-loading"><span class="spinner" aria-label="Loading"></span></div></div>\n'
        f'<script id="__NEXT_DATA__" type="application/json">{nd}</script>',
        head='<meta name="next-head-count" content="3"><link rel="preload" href="/_next/static/css/'
             + tag("nextcss") + '.css" as="style">\n' + "\n".join(
                 f'<script src="/_next/static/chunks/{n}-{tag("nx" + n, 16)}.js" defer></script>'
                 for n in ("webpack", "framework", "main", "pages/_app", "pages/account/[section]"))),
        "https://www.lumenpay.example/account/billing", "Next.js static export of a client-side page")

    # 5 Nuxt SPA mode
    add("nuxt-spa", bare(
        "Réservation | Gîtes du Vercors",
        '<div id="__nuxt"><style>#nuxt-loading{background:#fff;visibility:hidden;opacity:0;position:absolute;left:0;right:0;top:0;bottom:0}'
        '</style><div id="nuxt-loading" aria-live="polite" role="status"><div>Chargement…</div></div></div>\n'
        '<script>window.__NUXT__={config:{_app:{basePath:"/",assetsPath:"/_nuxt/",cdnURL:null}}}</script>\n'
        + "\n".join(f'<script src="/_nuxt/{tag("nuxt" + str(i))}.js"></script>' for i in range(4)),
        lang="fr"), "https://www.gites-vercors.example/reservation/chalet-des-pins", "Nuxt ssr:false with loading text", lang="fr")

    # 6 SvelteKit csr
    add("sveltekit-csr", bare(
        "Leaderboard",
        '<div style="display: contents">\n<script>{ __sveltekit_' + tag("sk", 6) + ' = { base: "", env: {} };\n'
        'const element = document.currentScript.parentElement;\nPromise.all([import("/_app/immutable/entry/start.'
        + tag("sks") + '.js"), import("/_app/immutable/entry/app.' + tag("ska") + '.js")]).then(([kit, app]) => { kit.start(app, element); });\n}</script>\n</div>',
        head='<link rel="modulepreload" href="/_app/immutable/entry/start.' + tag("sks") + '.js">'),
        "https://arena.quizbowl.example/leaderboard/season-7", "SvelteKit with ssr=false")

    # 7 Ember
    add("ember-app", bare(
        "Helpdesk",
        '<div id="ember-basic-dropdown-wormhole"></div>\n<script src="/assets/vendor-' + tag("emv", 32) + '.js"></script>\n'
        '<script src="/assets/helpdesk-' + tag("ema", 32) + '.js"></script>',
        head='<meta name="helpdesk/config/environment" content="%7B%22modulePrefix%22%3A%22helpdesk%22%2C%22environment%22%3A%22production%22%2C%22rootURL%22%3A%22%2F%22%7D">'
             '<link integrity="" rel="stylesheet" href="/assets/vendor-' + tag("emc", 32) + '.css">'),
        "https://support.gearbox.example/tickets/88213", "Ember app: config meta + vendor bundle, empty body")

    # 8 Vite + React with inline loading skeleton markup
    skel = "".join('<div class="skeleton-row"><span class="sk sk-avatar"></span><span class="sk sk-line"></span><span class="sk sk-line short"></span></div>' for _ in range(6))
    add("vite-skeleton-feed", bare(
        "Feed — Plotline",
        f'<div id="root"><div class="skeleton" aria-busy="true">{skel}</div></div>\n'
        f'<script type="module" crossorigin src="/assets/index-{tag("vite1")}.js"></script>',
        head=f'<link rel="stylesheet" crossorigin href="/assets/index-{tag("vitecss")}.css">'),
        "https://plotline.example/feed", "skeleton placeholders, no text")

    # 9 Gatsby client-only route
    add("gatsby-client-route", bare(
        "Account | Seedbank Co-op",
        '<div id="___gatsby"><div style="outline:none" tabindex="-1" id="gatsby-focus-wrapper"></div><div id="gatsby-announcer" '
        'style="position:absolute;top:0;width:1px;height:1px;padding:0;overflow:hidden;clip:rect(0, 0, 0, 0);white-space:nowrap;border:0" '
        'aria-live="assertive" aria-atomic="true"></div></div>\n'
        + "\n".join(f'<script src="/{n}-{tag("gb" + n, 20)}.js" async></script>' for n in ("webpack-runtime", "framework", "app", "component---src-pages-account-js")),
        head='<meta name="generator" content="Gatsby 5.12.4">'),
        "https://www.seedbank-coop.example/account/orders", "Gatsby client-only route")

    # 10 Angular with loading text and Spanish
    add("angular-loading-es", bare(
        "Banca en línea",
        '<app-root><div class="preloader"><img src="assets/img/logo.svg" alt="Banco del Valle"><p>Cargando…</p></div></app-root>\n'
        + "\n".join(f'<script src="{n}.{tag("nges" + n, 16)}.js" type="module"></script>' for n in ("runtime", "polyfills", "main")),
        lang="es"), "https://banca.bancodelvalle.example/inicio", "Angular, 'Cargando…' preloader", lang="es")

    # 11 Blazor WebAssembly
    add("blazor-wasm", bare(
        "Inventory",
        '<div id="app"><svg class="loading-progress"><circle r="40%" cx="50%" cy="50%"/><circle r="40%" cx="50%" cy="50%"/></svg>'
        '<div class="loading-progress-text"></div></div>\n<div id="blazor-error-ui">An unhandled error has occurred. '
        '<a href="" class="reload">Reload</a> <a class="dismiss">🗙</a></div>\n<script src="_framework/blazor.webassembly.js"></script>',
        head='<base href="/"><link href="css/app.css" rel="stylesheet"><link href="Inventory.Client.styles.css" rel="stylesheet">'),
        "https://inventory.harbourparts.example/items/PX-2231", "Blazor WASM: progress ring + hidden error UI", near=True)

    # 12 Flutter web
    add("flutter-web", bare(
        "menu_app",
        '<script>window.addEventListener("load",function(){_flutter.loader.loadEntrypoint({serviceWorker:{serviceWorkerVersion:"'
        + tag("flut", 10) + '"},onEntrypointLoaded:async function(e){let a=await e.initializeEngine();await a.runApp();}});});</script>',
        head='<meta name="apple-mobile-web-app-title" content="menu_app"><link rel="manifest" href="manifest.json">'
             '<script src="flutter.js" defer></script>'),
        "https://order.trattoria-luna.example/#/menu", "Flutter web: canvas app, nothing in the DOM")

    # 13 React with inline JSON state but no markup (Redux preload)
    state = ('{"router":{"location":{"pathname":"/listing/77120"}},"listing":{"status":"idle","id":"77120"},'
             '"session":{"locale":"en-GB","currency":"GBP"}}')
    add("react-redux-state", bare(
        "Holiday let in Whitby | Coastkeys",
        f'<div id="app-mount"></div>\n<script>window.__PRELOADED_STATE__ = {state};</script>\n'
        + _bundles("rr", ["vendors~main", "main"]),
        head='<meta property="og:site_name" content="Coastkeys">'),
        "https://www.coastkeys.example/listing/77120", "state blob without the listing data; empty mount")

    # 14 Vue with site chrome rendered but empty main outlet (near miss: nav has words)
    nav = "".join(f'<a href="/{x.lower()}">{x}</a>' for x in ("Courses", "Pricing", "Teams", "Blog", "Help"))
    add("vue-chrome-empty-outlet", bare(
        "Lesson — Learnsy",
        f'<header class="topnav"><a class="brand" href="/">Learnsy</a><nav>{nav}</nav><a href="/login">Log in</a> <a class="btn" href="/signup">Start free</a></header>\n'
        '<div id="app" data-v-app><div class="route-view"></div></div>\n'
        '<footer class="foot"><p>© 2024 Learnsy Ltd · <a href="/privacy">Privacy</a> · <a href="/terms">Terms</a></p></footer>\n'
        + _bundles("ln", ["chunk-vendors", "app"])),
        "https://learnsy.example/course/sql-basics/lesson/4", "static header/footer, empty router outlet", near=True)

    # 15 Please enable JavaScript (pt)
    add("js-required-pt", bare(
        "Minha Conta",
        '<noscript><div class="noscript-warning"><h1>JavaScript desativado</h1><p>Para usar este site, ative o JavaScript no seu navegador.</p></div></noscript>\n'
        '<div id="root"></div>\n' + _bundles("pt", ["main"]), lang="pt"),
        "https://minhaconta.lojaverde.example/pedidos", "Portuguese noscript notice", lang="pt")

    # 16 Remix SPA mode / React Router with hydrate fallback
    add("remix-hydrate-fallback", bare(
        "Loading… | Trailhead Maps",
        '<p class="hydrate-fallback">Loading…</p>\n<script>window.__remixContext = {"basename":"/","future":{"v3_fetcherPersist":true},'
        '"isSpaMode":true,"state":{"loaderData":{},"actionData":null,"errors":null}};</script>\n'
        '<script type="module" async>import "/assets/manifest-' + tag("rmx") + '.js"; import * as route0 from "/assets/root-'
        + tag("rmx0") + '.js"; window.__remixRouteModules = {"root": route0};import("/assets/entry.client-' + tag("rmxe") + '.js");</script>'),
        "https://maps.trailhead.example/trail/ridge-loop", "Remix SPA mode")

    # 17 Qwik/Astro island that never hydrated? Astro client:only island
    add("astro-client-only", bare(
        "Compare plans — Stackly",
        '<header><a href="/">Stackly</a></header>\n<main><astro-island uid="Z1' + tag("ast", 6) + '" component-url="/_astro/PlanTable.'
        + tag("astp") + '.js" component-export="default" renderer-url="/_astro/client.' + tag("astc") + '.js" props="{}" client="only" '
        'opts="{&quot;name&quot;:&quot;PlanTable&quot;,&quot;value&quot;:&quot;react&quot;}"></astro-island></main>\n'
        '<footer><small>© Stackly</small></footer>'),
        "https://stackly.example/pricing/compare", "Astro client:only island, empty")

    # 18 Ext JS style enterprise app (ja)
    add("extjs-enterprise-ja", bare(
        "経費精算システム",
        '<div id="loading-mask"></div><div id="loading"><div class="loading-indicator">読み込み中...</div></div>\n'
        '<script src="ext/ext-all.js"></script><script src="app.js?_dc=' + tag("ext", 10) + '"></script>', lang="ja"),
        "https://keihi.yamato-sangyo.example/app/#expense/2024-11", "Ext JS loading mask, Japanese", lang="ja")
    return out
