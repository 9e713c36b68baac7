"""Cookie walls (a consent page and nothing else), age gates, geo blocks and redirect stubs."""

from __future__ import annotations

from bench.junkgen.base import Page
from bench.junkgen.chrome import SITES, bare, h, render, tag, ul


def cookie_pages() -> list[Page]:
    K = "cookie_wall"
    out: list[Page] = []

    def add(slug, html, url, note="", lang="en", near=False):
        out.append(Page(K, slug, html, url, "too_short", lang=lang, note=note, near_miss=near))

    add("before-you-continue", bare(
        "Before you continue",
        '<div class="consent"><img src="/logo.svg" alt="Videoloop" height="24"><h1>Before you continue to Videoloop</h1>'
        '<p>We use cookies and data to deliver and maintain our services, track outages and protect against spam, fraud and abuse, and measure audience engagement.</p>'
        '<p>If you choose to “Accept all”, we will also use cookies and data to develop and improve new services, deliver and measure the effectiveness of ads, and show personalised content.</p>'
        '<form method="post" action="https://consent.videoloop.example/save"><input type="hidden" name="continue" value="https://www.videoloop.example/watch?v=' + tag("v", 11) + '">'
        '<button name="set_eom" value="true">Reject all</button><button name="set_eom" value="false">Accept all</button></form><a href="/consent/more">More options</a></div>'),
        "https://consent.videoloop.example/ml?continue=https://www.videoloop.example/watch", "interstitial consent page")

    add("de-pur-abo", bare(
        "Zustimmung | Nordkurier Online",
        '<div class="cmp-wall"><h1>Nordkurier Online mit Werbung oder im Pur-Abo</h1><div class="choices"><div class="choice">'
        '<h2>Mit Werbung lesen</h2><p>Wir und unsere 212 Partner verarbeiten personenbezogene Daten, z. B. Ihre IP-Adresse, um Inhalte und Anzeigen zu personalisieren.</p>'
        '<button class="accept">Zustimmen und weiter</button></div><div class="choice"><h2>Pur-Abo</h2><p>Ohne Werbetracking und ohne Werbebanner für 2,99 € im Monat.</p>'
        '<a href="/pur-abo">Jetzt abonnieren</a></div></div><p class="small"><a href="/datenschutz">Datenschutz</a> · <a href="/impressum">Impressum</a></p></div>', lang="de"),
        "https://www.nordkurier-online.example/lokales/hafenfest-2024", "pay-or-okay", lang="de")

    add("fr-choix-cookies", bare(
        "Vos choix concernant les cookies",
        '<div id="didomi-host"><div class="didomi-popup-container"><h1>Vos choix concernant l\'utilisation de cookies</h1>'
        '<p>Avec votre accord, nos 148 partenaires et nous utilisons des cookies ou technologies similaires pour stocker et accéder à des informations personnelles comme votre visite sur ce site.</p>'
        '<button id="didomi-notice-agree-button">Accepter &amp; Fermer</button><button id="didomi-notice-learn-more-button">Paramétrer les cookies</button>'
        '<a href="/abonnement-sans-cookies">Continuer sans accepter → Refuser et s\'abonner</a></div></div>', lang="fr",
        head='<script src="https://sdk.privacy-center.example/loader.js" charset="utf-8"></script>'),
        "https://www.meteo-cotes.example/previsions/brest", "French CMP only", lang="fr")

    add("nl-cookiewall", bare(
        "Cookiewall - Weekblad Oost",
        '<main class="cookiewall"><h1>Wij gebruiken cookies</h1><p>Weekblad Oost gebruikt functionele en analytische cookies om de website goed te laten werken. '
        'Daarnaast plaatsen wij en derde partijen tracking cookies om advertenties af te stemmen op jouw interesses.</p>'
        '<form method="post" action="/cookiewall/accept"><input type="hidden" name="referrer" value="/nieuws/brug-dicht"><button>Akkoord</button></form>'
        '<a href="/cookiewall/instellingen">Instellingen aanpassen</a></main>', lang="nl"),
        "https://www.weekbladoost.example/cookiewall?referrer=%2Fnieuws%2Fbrug-dicht", "Dutch", lang="nl")

    add("it-accetta-abbonati", bare(
        "Privacy | Gazzetta del Lago",
        '<div class="privacy-wall"><h1>Il tuo consenso per la privacy</h1><p>Per leggere gratuitamente i nostri articoli, accetta i cookie di profilazione. '
        'In alternativa puoi abbonarti e navigare senza pubblicità.</p><button class="accetta">Accetta e continua</button>'
        '<a class="abbonati" href="/abbonamenti/senza-pubblicita">Abbonati senza pubblicità a 1€/mese</a></div>', lang="it"),
        "https://www.gazzettadellago.example/cronaca/2024/03/traghetto", "Italian", lang="it")

    add("sourcepoint-container-only", bare(
        "Loading…",
        '<div id="sp_message_container_' + str(int(tag("sp", 6), 16)) + '" class="sp_veil" style="display:block"><iframe id="sp_message_iframe_' + str(int(tag("spi", 6), 16)) +
        '" src="https://cmp.consent-vendor.example/index.html?message_id=' + str(int(tag("spm", 6), 16)) + '" title="SP Consent Message"></iframe></div>'
        '<script>window._sp_queue=[];window._sp_={config:{accountId:1234,baseEndpoint:"https://cmp.consent-vendor.example"}};</script>'
        '<script src="https://cmp.consent-vendor.example/unified/wrapperMessagingWithoutDetection.js" async></script>'),
        "https://www.tabloid-today.example/celebs/red-carpet-recap", "only the consent iframe container")

    vendors = ["Adtrack Media", "Brightbid Exchange", "CloudPixel Analytics", "Datamine Partners", "Echo Audience", "Fluxion Ads", "Gridlock Measurement",
               "Hivemind DMP", "Inkwell Retargeting", "Jetstream SSP", "Kestrel Insights", "Lumen Verify", "Monarch Bidder", "Nimbus Identity", "Orbit Video Ads",
               "Parallax Attribution", "Quanta Segments", "Riverbend Reach", "Solstice Sync", "Tundra Trading Desk", "Umbra Fraud Check", "Vantage Geo",
               "Wavelength CTV", "Xylo Native", "Yardstick Panels", "Zenith Lookalikes"]
    items = "".join(f'<li class="vendor"><label><input type="checkbox" checked> {h(v)}</label><span class="purposes">Store and/or access information on a device · '
                    f'Personalised advertising · Measurement</span><a href="https://{tag(v, 6)}.example/privacy">Privacy policy</a></li>' for v in vendors)
    add("vendor-list-long", bare(
        "We value your privacy",
        '<div class="cmp-fullscreen"><h1>We value your privacy</h1><p>We and our 842 partners store and access information on your device and process personal data, '
        'such as unique identifiers and standard information sent by a device, for personalised advertising and content, advertising and content measurement, '
        'audience research and services development.</p><div class="buttons"><button>I accept</button><button>Show purposes</button></div>'
        f'<h2>Partners</h2><ul class="vendor-list">{items}</ul><button>Save &amp; exit</button></div>'),
        "https://www.quizzy-fun.example/quiz/which-dog-breed-are-you", "long vendor list, no content", near=True)

    add("es-consentimiento", bare(
        "Aviso de cookies – Radio Costa",
        '<div class="cmp"><h1>Tu privacidad es importante para nosotros</h1><p>Utilizamos cookies propias y de terceros para analizar el uso del sitio y mostrarte publicidad '
        'relacionada con tus preferencias. Puedes aceptar todas las cookies, rechazarlas o configurarlas.</p><button>Aceptar</button><button>Rechazar</button><button>Configurar</button></div>',
        lang="es"), "https://www.radiocosta.example/podcast/la-tarde/episodio-212", "Spanish", lang="es")

    add("pl-rodo", bare(
        "Twoja prywatność – Portal Miejski",
        '<div class="rodo-overlay"><h1>Zanim przejdziesz do serwisu</h1><p>Wykorzystujemy pliki cookies i podobne technologie w celu świadczenia usług, analizy ruchu i personalizacji reklam. '
        'Administratorem danych jest Portal Miejski sp. z o.o.</p><button>Przejdź do serwisu</button><a href="/rodo/ustawienia">Ustawienia zaawansowane</a></div>', lang="pl"),
        "https://www.portalmiejski.example/wiadomosci/remont-ronda", "Polish", lang="pl")

    s = SITES["hemma"]
    add("sv-chrome-consent-only", render(s, "Hemma & Trädgård",
        '<div class="cookie-gate" role="dialog"><h2>Vi använder kakor</h2><p>Vi använder kakor (cookies) för att webbplatsen ska fungera och för statistik och annonser. '
        'Du måste göra ett val för att fortsätta.</p><button>Godkänn alla</button><button>Endast nödvändiga</button></div>'),
        "https://www.hemmatradgard.example/2024/04/pallkragar", "Swedish, chrome around an empty consent gate", lang="sv", near=True)

    add("onetrust-only", bare(
        "Holloway Mutual",
        '<div id="onetrust-consent-sdk"><div class="onetrust-pc-dark-filter"></div><div id="onetrust-banner-sdk" class="otCenterRounded" role="alertdialog">'
        '<div id="onetrust-policy"><h2 id="onetrust-policy-title">Your cookie choices</h2><div id="onetrust-policy-text">Strictly necessary cookies are always on. '
        'Select "Accept all" to allow analytics and marketing cookies.</div></div><div id="onetrust-button-group"><button id="onetrust-accept-btn-handler">Accept all</button>'
        '<button id="onetrust-reject-all-handler">Reject all</button><button id="onetrust-pc-btn-handler">Manage preferences</button></div></div></div>'
        '<div id="app"></div><script src="/static/app.' + tag("hm") + '.js"></script>',
        head='<script src="https://cdn.cookielaw.example/scripttemplates/otSDKStub.js" data-domain-script="' + tag("ot", 8) + '-' + tag("ot2", 4) + '"></script>'),
        "https://www.hollowaymutual.example/insurance/home", "OneTrust banner over an empty app")

    add("consent-redirect-form", bare(
        "Consent",
        '<form action="https://consent.portalgroup.example/save" method="post"><input type="hidden" name="gcrumb" value="' + tag("gc", 12) + '">'
        '<input type="hidden" name="sessionId" value="3_cc-session_' + tag("sid", 36) + '"><input type="hidden" name="originalDoneUrl" value="https://news.portalgroup.example/markets">'
        '<p>Portal Group is part of the Portal family of brands. We and our partners use cookies. Click "Accept all" to agree or "Reject all" to decline.</p>'
        '<button type="submit" name="agree" value="agree">Accept all</button><button type="submit" name="reject" value="reject">Reject all</button></form>'),
        "https://consent.portalgroup.example/v2/collectConsent?sessionId=3_cc-session", "consent host redirect page")
    return out


def age_pages() -> list[Page]:
    K = "age_gate"
    out: list[Page] = []

    def add(slug, html, url, note="", lang="en"):
        out.append(Page(K, slug, html, url, "too_short", lang=lang, note=note))

    add("winery-legal-age", bare(
        "Welcome | Hollow Oak Winery",
        '<div class="age-gate"><img src="/img/hollow-oak.svg" alt="Hollow Oak Winery"><h1>Are you of legal drinking age?</h1>'
        '<p>You must be 21 or older to enter this site.</p><button data-answer="yes">Yes, I am 21+</button><button data-answer="no">No</button>'
        '<p class="fine">Please enjoy responsibly.</p></div>'),
        "https://www.hollowoakwinery.example/wines/reserve-pinot-2021", "US wine site")

    add("de-bist-du-18", bare(
        "Altersprüfung – Brauhaus Steinbach",
        '<div class="altersabfrage"><h1>Bist du mindestens 16 Jahre alt?</h1><p>Um unsere Seite zu besuchen, musst du das gesetzliche Mindestalter für den Genuss von Bier erreicht haben.</p>'
        '<a class="ja" href="?age=ok">Ja</a> <a class="nein" href="https://www.kenn-dein-limit.example">Nein</a></div>', lang="de"),
        "https://www.brauhaus-steinbach.example/biere/dunkel", "German brewery", lang="de")

    add("game-birthdate", bare(
        "Age check — Ashen Crown",
        '<div class="agecheck"><h2>This content may not be appropriate for all ages.</h2><p>Please enter your birth date to continue:</p>'
        '<form><select name="day">' + "".join(f"<option>{d}</option>" for d in range(1, 32)) + '</select><select name="month"><option>January</option>'
        '<option>February</option><option>March</option></select><select name="year">' + "".join(f"<option>{y}</option>" for y in range(2010, 1930, -10)) +
        '</select><button>View page</button></form><a href="/">Cancel</a></div>'),
        "https://store.gamehub.example/app/ashen-crown", "birth date form")

    add("fr-avertissement", bare(
        "Avertissement",
        '<div class="overlay"><h1>Avertissement</h1><p>Ce site est réservé à un public majeur. En entrant, vous certifiez avoir au moins 18 ans.</p>'
        '<a class="entrer" href="/?majeur=1">Entrer</a> <a class="sortir" href="https://www.example.org">Sortir</a></div>', lang="fr"),
        "https://www.cave-rouge.example/spiritueux/rhum-arrange", "French", lang="fr")

    add("cannabis-es", bare(
        "Verificación de edad",
        '<div class="modal-edad"><h1>¿Eres mayor de edad?</h1><p>Debes tener 18 años o más para acceder a esta tienda.</p><button>Sí</button><button>No</button></div>',
        lang="es"), "https://www.growshop-sol.example/semillas/autoflorecientes", "Spanish", lang="es")
    return out


def geo_pages() -> list[Page]:
    K = "geo_block"
    out: list[Page] = []

    def add(slug, html, url, note="", lang="en", status=200):
        out.append(Page(K, slug, html, url, "too_short", lang=lang, note=note, status=status))

    add("gdpr-eea-unavailable", bare(
        "Not available",
        '<div class="notice"><h1>451: Unavailable due to legal reasons</h1><p>We recognize you are attempting to access this website from a country belonging to the '
        'European Economic Area (EEA) including the EU which enforces the General Data Protection Regulation (GDPR) and therefore access cannot be granted at this time.</p>'
        '<p>For any issues, contact newsdesk@gazette-tx.example.</p></div>'),
        "https://www.gazette-tx.example/news/county-fair-results", "GDPR geoblock served with 200")

    add("gdpr-451-status", bare(
        "Unavailable For Legal Reasons",
        '<h1>Sorry</h1><p>This site is not available in your region.</p>'),
        "https://www.midwest-herald.example/sports/high-school-football", "status 451", status=451)

    add("streaming-region", bare(
        "Not available in your region | StreamBox",
        '<div class="player-error"><div class="icon">🌐</div><h1>This title isn\'t available in your region</h1><p>Due to licensing restrictions, StreamBox is not available in your country yet.</p>'
        '<a href="/help/availability">Learn more</a></div><div id="player"></div>'),
        "https://www.streambox.example/watch/the-lighthouse-keepers-s01e03", "streaming licence block")

    add("de-video-nicht-verfuegbar", bare(
        "Video nicht verfügbar",
        '<div class="geo"><h1>Dieses Video ist in deinem Land leider nicht verfügbar.</h1><p>Aus lizenzrechtlichen Gründen können wir diesen Inhalt nur in Österreich zeigen.</p></div>',
        lang="de"), "https://tvthek.alpen-tv.example/profile/Nachrichten/131/episode/1448", "German", lang="de")

    add("shop-country-redirect", bare(
        "Choose your country",
        '<div class="country-select"><h1>It looks like you\'re visiting from outside the United States</h1><p>This store ships to US addresses only. Choose your region:</p>'
        + ul(f'<a href="https://{c}.mountainpack.example/">{n}</a>' for c, n in (("uk", "United Kingdom"), ("de", "Deutschland"), ("fr", "France"), ("au", "Australia")))
        + "</div>"),
        "https://www.mountainpack.example/products/summit-45l", "region chooser instead of the product")
    return out


def redirect_pages() -> list[Page]:
    K = "redirect_stub"
    out: list[Page] = []

    def add(slug, html, url, note="", lang="en"):
        out.append(Page(K, slug, html, url, "too_short", lang=lang, note=note))

    add("meta-refresh", bare(
        "Redirecting…",
        '<p>Redirecting to <a href="https://www.newdomain-cafe.example/menu">https://www.newdomain-cafe.example/menu</a>…</p>',
        head='<meta http-equiv="refresh" content="0; url=https://www.newdomain-cafe.example/menu"><link rel="canonical" href="https://www.newdomain-cafe.example/menu">'),
        "https://www.olddomain-cafe.example/menu", "meta refresh stub")

    add("js-location", bare(
        "",
        '<script>window.location.replace("https://m.shortnews.example/a/" + "8812" + location.search);</script>'
        '<noscript>You are being redirected. <a href="https://m.shortnews.example/a/8812">Click here</a> if nothing happens.</noscript>'),
        "https://shortnews.example/a/8812", "JS redirect")

    add("link-shortener-interstitial", bare(
        "You are leaving Chatterbox",
        '<div class="leaving"><h1>You are leaving Chatterbox</h1><p>The link you clicked goes to an external website:</p><p class="url">https://www.some-blog.example/post/77</p>'
        '<a class="btn" href="https://www.some-blog.example/post/77" rel="nofollow noopener">Continue</a> <a href="javascript:history.back()">Go back</a></div>'),
        "https://chatterbox.example/out?u=https%3A%2F%2Fwww.some-blog.example%2Fpost%2F77", "outbound link warning")

    add("de-weiterleitung", bare(
        "Weiterleitung",
        '<p>Sie werden in 5 Sekunden weitergeleitet. Falls nicht, klicken Sie bitte <a href="https://www.stadtwerke-neu.example/kundenservice">hier</a>.</p>',
        head='<meta http-equiv="refresh" content="5;URL=https://www.stadtwerke-neu.example/kundenservice">', lang="de"),
        "https://www.stadtwerke-alt.example/service/index.php?id=44", "German", lang="de")

    add("moved-notice", bare(
        "We've moved!",
        '<div class="moved"><h1>We\'ve moved!</h1><p>Our blog now lives at <a href="https://journal.tinkerworks.example/">journal.tinkerworks.example</a>. Please update your bookmarks.</p></div>'),
        "https://blog.tinkerworks.example/2019/04/soldering-station-review", "moved notice for every old URL")
    return out
