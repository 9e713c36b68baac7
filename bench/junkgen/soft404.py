"""Soft 404s: "not found" templates served with status 200, some with long lists of links."""

from __future__ import annotations

from bench.junkgen.base import Page
from bench.junkgen.chrome import SITES, bare, h, link_list, render, tag, ul

K = "soft_404"

LEDGER_POPULAR = [
    ("Council votes to reopen the harbour ferry after a decade", "The route closed in 2014; a new operator says boats could run by spring."),
    ("What the rate pause means for first-time buyers", "Lenders are quietly trimming fixed deals, but not everywhere."),
    ("Inside the lab growing coral on concrete", "Marine biologists are testing textured blocks off the northern reef."),
    ("The quiet collapse of the village post office", "Eleven branches shut in the county last year. Who fills the gap?"),
    ("Review: a staging of The Tempest set in a flooded car park", "Wet, loud and oddly moving."),
    ("Why the new rail timetable is already late", "Engineering works and a driver shortage collide."),
    ("Five walks for a short winter afternoon", "From the lighthouse loop to the old quarry path."),
    ("Opinion: our libraries are not a luxury", "Cutting opening hours saves little and costs a lot."),
    ("Local derby ends in stoppage-time drama", "A header in the 94th minute settled it."),
    ("The farmers betting on oats again", "A grain that fell out of favour is back in the rotation."),
    ("How a spreadsheet error delayed 400 school places", "An audit found a formula copied one row too far."),
    ("Weather: the wettest November since records began", "Rain gauges at the airport logged 212 mm."),
]


def _teasers(items, cls="teaser") -> str:
    return "".join(
        f'<article class="{cls}"><h3><a href="/story/{tag(t, 6)}">{h(t)}</a></h3><p>{h(s)}</p></article>' for t, s in items)


def pages() -> list[Page]:
    out: list[Page] = []

    def add(slug, html, url, note="", lang="en", near=False, status=200):
        out.append(Page(K, slug, html, url, "soft_404", lang=lang, note=note, near_miss=near, status=status))

    s = SITES["northwind"]
    add("shop-plain", render(s, "Page not found | Northwind Outfitters",
        '<section class="error-page"><h1>Sorry, we couldn\'t find that page</h1><p>The link may be broken, or the page may have been removed.</p>'
        '<p><a class="btn" href="/">Back to the homepage</a></p></section>'),
        "https://shop.northwind.example/products/trail-runner-x2-blue", "short, chrome + search box")

    s = SITES["ledger"]
    add("news-popular-list", render(s, "Page not found – The Daily Ledger",
        '<div class="notfound"><h1>We can\'t find the page you\'re looking for</h1><p>It may have moved, or the address may be mistyped. '
        'Try searching, or start again from the front page.</p></div><section class="most-read"><h2>Most read this week</h2>'
        + _teasers(LEDGER_POPULAR) + "</section>",
        sidebar='<div class="newsletter"><h4>Morning Briefing</h4><p>The day\'s essential stories, before breakfast.</p><a href="/newsletters">Sign up</a></div>'),
        "https://www.dailyledger.example/2023/05/harbour-ferry-consultation-closes", "long most-read list with teasers", near=True)

    s = SITES["kuechenwerk"]
    rez = [("Schneller Linseneintopf mit Räuchertofu", "30 Min. · einfach"), ("Zwetschgendatschi vom Blech", "1 Std. · normal"),
           ("Ofengemüse mit Feta und Honig", "45 Min. · einfach"), ("Klassische Rinderrouladen", "2 Std. · anspruchsvoll"),
           ("Kürbissuppe mit Ingwer", "35 Min. · einfach"), ("Spätzle selbst gemacht", "40 Min. · normal"),
           ("Apfelstrudel mit Vanillesauce", "1 Std. 20 Min. · anspruchsvoll"), ("Bärlauchpesto", "15 Min. · einfach")]
    cards = "".join(f'<div class="card recipe-card"><img src="/img/r/{tag(t, 6)}.jpg" alt=""><div class="card-body"><h5 class="card-title">'
                    f'<a href="/rezepte/{tag(t, 6)}">{h(t)}</a></h5><p class="card-text small">{h(m)}</p></div></div>' for t, m in rez)
    add("recipes-de-grid", render(s, "Seite nicht gefunden – Küchenwerk",
        '<div class="alert alert-warning"><h1>Hoppla! Diese Seite gibt es nicht.</h1><p>Vielleicht wurde das Rezept umbenannt oder entfernt. '
        'Nutzen Sie die Suche oder stöbern Sie in unseren beliebtesten Rezepten.</p></div><h2>Beliebte Rezepte</h2>'
        f'<div class="card-deck">{cards}</div>',
        sidebar='<div class="widget"><h4>Kategorien</h4>' + link_list([("/backen", "Backen"), ("/suppen", "Suppen"), ("/salate", "Salate"), ("/desserts", "Desserts")]) + "</div>"),
        "https://www.kuechenwerk.example/rezepte/omas-kaesekuchen-ohne-boden", "German, recipe card grid", lang="de", near=True)

    s = SITES["quotidien"]
    add("news-fr", render(s, "Page introuvable - Le Quotidien du Port",
        '<div class="erreur"><p class="code">Erreur 404</p><h1>La page demandée est introuvable</h1>'
        '<p>L\'article que vous cherchez a peut-être été déplacé ou supprimé. Vérifiez l\'adresse ou utilisez notre moteur de recherche.</p>'
        '<ul class="pistes"><li><a href="/">Retour à la une</a></li><li><a href="/region/">Toute l\'actualité de la région</a></li></ul></div>'),
        "https://www.quotidien-port.example/region/2022/03/14/la-criee-change-d-horaires", "French", lang="fr")

    s = SITES["sierra"]
    lo = [("El pantano alcanza su nivel más alto en cinco años", "Local"), ("Cortes de tráfico por la vuelta ciclista", "Deportes"),
          ("La feria del libro amplía su programación infantil", "Cultura"), ("Nuevas ayudas para la rehabilitación de viviendas", "España"),
          ("Un vecino encuentra una moneda romana en su huerto", "Local"), ("El ayuntamiento aprueba el presupuesto de 2025", "Local"),
          ("Así será el invierno según la Aemet", "Tiempo"), ("El equipo juvenil gana la liga regional", "Deportes"), ("Qué ver este fin de semana", "Ocio"), ("Las claves de la nueva ley de vivienda", "España")]
    add("news-es-lo-mas-leido", render(s, "Página no encontrada | Diario Sierra",
        '<h1 class="titulo-error">Lo sentimos, la página que buscas no existe</h1><p>Es posible que la noticia se haya eliminado o que la dirección no sea correcta.</p>'
        '<section class="lo-mas-leido"><h2>Lo más leído</h2><ol>' + "".join(
            f'<li><span class="seccion">{h(sec)}</span> <a href="/noticia/{tag(t, 6)}">{h(t)}</a></li>' for t, sec in lo) + "</ol></section>"),
        "https://www.diariosierra.example/local/2021/feria-ganado-suspendida.html", "Spanish, most-read list", lang="es", near=True)

    s = SITES["reteviaggi"]
    add("travel-it", render(s, "Rete Viaggi",
        '<div class="page-404 text-center"><img src="/img/valigia-persa.svg" alt="Valigia smarrita" width="220">'
        '<h1>Pagina non trovata</h1><p>Sembra che questa meta non sia più sulla nostra mappa.</p><a class="btn btn-primary" href="/">Torna alla home</a></div>'),
        "https://www.reteviaggi.example/offerte/crociera-fiordi-2019", "Italian, title is just the site name", lang="it")

    s = SITES["fietsplein"]
    add("shop-nl-product-gone", render(s, "Fietsplein",
        '<div class="melding"><h1>Deze pagina bestaat niet (meer)</h1><p>Het product dat je zoekt is mogelijk uit het assortiment gehaald.</p></div>'
        '<h2>Misschien vind je dit leuk</h2><div class="product-grid">' + "".join(
            f'<div class="product-tile"><a href="/p/{tag(n, 5)}"><img src="/img/{tag(n, 5)}.webp" alt=""><span class="naam">{h(n)}</span>'
            f'<span class="prijs">€ {p}</span></a><button class="add">In winkelwagen</button></div>'
            for n, p in (("Stadsfiets Amstel N7", "649,00"), ("Fietstas Urban 20L", "59,95"), ("LED-koplamp 70 lux", "34,99"),
                         ("Kettingslot 110 cm", "44,50"), ("Regenpak Delta", "89,00"), ("Fietsbel messing", "12,95"))) + "</div>"),
        "https://www.fietsplein.example/p/stadsfiets-gazelle-2017-zwart", "Dutch, product grid, title = site name", lang="nl", near=True)

    s = SITES["kitedocs"]
    add("docs-moved", render(s, "Kiteworks Docs",
        '<article class="doc"><h1>Hmm, that link seems to be broken</h1><p>This page may have been moved or renamed in v4. '
        'Check the <a href="/docs/changelog/">changelog</a> or use the search bar above.</p>'
        '<p>Looking for the v3 documentation? It is archived at <a href="https://v3.docs.kiteworks.example/">v3.docs.kiteworks.example</a>.</p></article>'),
        "https://docs.kiteworks.example/docs/configuration/legacy-sso/", "no 404 word in title or heading")

    s = SITES["railforum"]
    add("forum-topic-missing", render(s, "Model Rail Forum - Information",
        '<div class="panel" id="message"><div class="inner"><h2 class="message-title">Information</h2>'
        '<p>The requested topic does not exist.</p><p><a href="./index.php">Return to the board index</a></p></div></div>'),
        "https://forum.modelrail.example/viewtopic.php?t=48812", "phpBB-style information box")

    s = SITES["saude"]
    add("health-pt", render(s, "Página não encontrada - Portal Saúde",
        '<div class="erro"><h1>Ops! Página não encontrada</h1><p>O conteúdo que você procura pode ter sido removido ou mudado de endereço.</p>'
        '<h2>Talvez você se interesse por</h2>' + link_list([("/alimentacao/fibras", "Fibras: por que são importantes"),
            ("/exercicio/caminhada", "Caminhada: como começar"), ("/bem-estar/sono", "Dicas para dormir melhor"),
            ("/doencas/gripe", "Gripe ou resfriado?")]) + "</div>"),
        "https://www.portalsaude.example/doencas/dengue-sintomas-2019", "Portuguese", lang="pt")

    s = SITES["wydarzenia"]
    add("events-pl", render(s, "Nie znaleziono strony | Wydarzenia Kraków",
        '<div class="blad"><h1>Nie znaleziono strony</h1><p>Wydarzenie mogło zostać odwołane lub przeniesione. Sprawdź <a href="/kalendarz">kalendarz</a>.</p></div>'),
        "https://www.wydarzenia-krakow.example/koncerty/jazz-nad-wisla-2018", "Polish", lang="pl")

    s = SITES["cornerstone"]
    az = [(f"/a-z/{c.lower()}", c) for c in "ABCDEFGHIJKLMNOPRSTUVW"]
    depts = [("/study/undergraduate", "Undergraduate study"), ("/study/postgraduate", "Postgraduate study"), ("/research/centres", "Research centres"),
             ("/library/opening-hours", "Library opening hours"), ("/campus/accommodation", "Accommodation"), ("/about/contact", "Contact us"),
             ("/news", "Latest news"), ("/events", "Events calendar"), ("/jobs", "Work at Cornerstone"), ("/study/open-days", "Open days")]
    add("university-az", render(s, "We couldn't find that page - Cornerstone University",
        '<div class="page-header"><h1>We couldn\'t find that page</h1></div><p>We recently reorganised our website and some addresses changed. '
        'You could try one of these popular pages, or browse the A to Z.</p><h2>Popular pages</h2>' + link_list(depts, "popular")
        + '<h2>A to Z</h2><div class="az">' + link_list(az, "az-list") + "</div>"),
        "https://www.cornerstone-u.example/study/courses/2019/geography-ba", "A-Z index and popular pages", near=True)

    s = SITES["aurora"]
    add("bank-error404", render(s, "Error 404 | Aurora Bank",
        '<h1>Error 404</h1><p>This page isn\'t available. Use the menu above or go to <a href="/help">Help &amp; support</a>.</p>'),
        "https://www.aurorabank.example/personal/savings/bonus-saver-2020", "minimal")

    # WordPress theme 404 with widgets
    s = SITES["hemma"]
    recent = [("Så planerar du en köksträdgård i pallkragar", "/2024/04/pallkragar"), ("Måla om fönsterbågar – steg för steg", "/2024/03/fonsterbagar"),
              ("Vårens bästa lökväxter", "/2024/03/lokvaxter"), ("Tio tips för ett ljusare hall", "/2024/02/hall"), ("Kompostera på balkongen", "/2024/01/kompost")]
    add("wordpress-sv-widgets", render(s, "Sidan kunde inte hittas – Hemma & Trädgård",
        '<section class="error-404 not-found"><header class="page-header"><h1 class="page-title">Hoppsan! Sidan kunde inte hittas.</h1></header>'
        '<div class="page-content"><p>Det verkar som om ingenting fanns på den här platsen. Prova en av länkarna nedan eller en sökning?</p>'
        '<form role="search" class="search-form" action="/"><input type="search" class="search-field" name="s"><input type="submit" value="Sök"></form>'
        '<div class="widget widget_recent_entries"><h2 class="widget-title">Senaste inläggen</h2>' + link_list([(u, t) for t, u in recent]) + "</div>"
        '<div class="widget widget_categories"><h2 class="widget-title">Mest använda kategorier</h2>' + ul(
            f'<a href="/kategori/{c.lower()}">{c}</a> ({n})' for c, n in (("Trädgård", 84), ("Renovering", 61), ("Inredning", 47), ("Guider", 22)))
        + '</div><div class="widget widget_archive"><h2 class="widget-title">Arkiv</h2><p>Prova att titta i de månatliga arkiven.</p>'
        '<select name="archive-dropdown"><option>Välj månad</option><option>april 2024</option><option>mars 2024</option><option>februari 2024</option></select></div></div></section>'),
        "https://www.hemmatradgard.example/2016/09/bygga-friggebod", "Swedish WordPress 404 with widgets", lang="sv", near=True)

    # Next.js default 404
    add("nextjs-default", bare(
        "404: This page could not be found",
        '<div id="__next"><div style="font-family:system-ui,&quot;Segoe UI&quot;,Roboto,Helvetica,Arial,sans-serif;height:100vh;text-align:center;display:flex;'
        'flex-direction:column;align-items:center;justify-content:center"><div><h1 class="next-error-h1" style="display:inline-block;margin:0 20px 0 0;'
        'padding:0 23px 0 0;font-size:24px;font-weight:500;vertical-align:top;line-height:49px">404</h1><div style="display:inline-block">'
        '<h2 style="font-size:14px;font-weight:400;line-height:49px;margin:0">This page could not be found.</h2></div></div></div></div>'
        '<script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"statusCode":404}},"page":"/_error","query":{},"buildId":"'
        + tag("n404", 21) + '","nextExport":true,"isFallback":false,"gip":true,"scriptLoader":[]}</script>'),
        "https://www.lumenpay.example/blog/introducing-instant-payouts", "Next.js /_error page")

    add("playful-lost", bare(
        "Lost?",
        '<div class="wrap"><svg viewBox="0 0 200 120" width="200" role="img" aria-label="A small boat drifting"><path d="M20 90 Q100 120 180 90" stroke="#246" fill="none"/>'
        '<path d="M70 88 L130 88 L120 100 L80 100 Z" fill="#c63"/><path d="M100 40 L100 88 L130 80 Z" fill="#eee"/></svg>'
        '<h1>Gone fishing.</h1><p>Whatever was here has drifted off. <a href="/">Paddle home</a>.</p></div>',
        head='<link rel="stylesheet" href="/css/site.css">'),
        "https://www.paddleandpine.example/trips/2019-lake-district", "playful wording, no 404 words")

    s = SITES["sakura"]
    add("travel-ja", render(s, "お探しのページは見つかりませんでした | さくら旅行ガイド",
        '<div class="notfound"><h1>お探しのページは見つかりませんでした</h1><p>ページが移動または削除された可能性があります。'
        'お手数ですが、トップページから目的のページをお探しください。</p><p><a href="/">トップページへ戻る</a></p></div>'),
        "https://www.sakura-guide.example/onsen/hakone/2018-campaign", "Japanese", lang="ja")

    add("cms-apache-wording", bare(
        "Not Found",
        '<h1>Not Found</h1>\n<p>The requested URL was not found on this server.</p>\n<hr>\n<address>Web Server at www.lakeside-dental.example Port 443</address>',
        ), "https://www.lakeside-dental.example/team/dr-hollis", "server-style text served with 200 by a CMS")

    s = SITES["jobpost"]
    sim = [("Senior Data Analyst", "Brightwater Energy", "Leeds · Hybrid", "£48,000 – £55,000"), ("Data Analyst (Fixed term)", "NHS Trust North", "York", "£34,581"),
           ("Analytics Engineer", "Pennyworth Insurance", "Remote (UK)", "£60,000"), ("BI Developer", "Harrow & Lane", "Manchester", "£45,000 – £52,000"),
           ("Junior Data Analyst", "Cloudberry Retail", "Sheffield", "£27,000"), ("Reporting Analyst", "Fenwick Logistics", "Bradford · On-site", "£31,000"),
           ("Insight Analyst", "Mapleton Council", "Wakefield", "£36,124"), ("Product Analyst", "Tiller Finance", "Remote", "£50,000")]
    jobs = "".join(f'<div class="job-card"><h3><a href="/job/{tag(t + c, 8)}">{h(t)}</a></h3><div class="company">{h(c)}</div>'
                   f'<div class="loc">{h(l)}</div><div class="salary">{h(p)}</div><button class="save">Save</button></div>' for t, c, l, p in sim)
    add("job-expired-similar", render(s, "Job not found | Jobpost",
        '<div class="job-expired"><h1>This job is no longer available</h1><p>The employer may have filled the position or removed the advert.</p></div>'
        f'<h2>Similar jobs near Leeds</h2><div class="job-list">{jobs}</div>'),
        "https://www.jobpost.example/job/data-analyst-leeds-3f9a21", "expired job with similar-jobs list", near=True)

    add("status-in-body-only", bare(
        "Daylight Coffee Roasters",
        '<div class="center"><img src="/img/cup-404.png" alt="404 - empty cup" width="300"><p><a href="/">Shop coffee</a></p></div>',
        head='<link rel="stylesheet" href="/shop.css">'),
        "https://www.daylightcoffee.example/collections/limited-geisha", "only an image alt says 404")
    return out
