"""Login walls and paywalls."""

from __future__ import annotations

import json

from bench.junkgen.base import Page
from bench.junkgen.chrome import SITES, bare, h, link_list, render, tag, ul


def _pw_form(action: str, user: str = "Email address", pw: str = "Password", submit: str = "Sign in",
             forgot: str = "Forgot your password?", extra: str = "") -> str:
    return (f'<form class="login-form" method="post" action="{action}"><input type="hidden" name="csrf_token" value="{tag(action, 32)}">'
            f'<label for="u">{h(user)}</label><input id="u" name="username" type="email" autocomplete="username" required>'
            f'<label for="p">{h(pw)}</label><input id="p" name="password" type="password" autocomplete="current-password" required>'
            f'{extra}<button type="submit">{h(submit)}</button><a class="forgot" href="/password/reset">{h(forgot)}</a></form>')


def login_pages() -> list[Page]:
    K = "login_wall"
    out: list[Page] = []

    def add(slug, html, url, note="", lang="en", near=False, status=200):
        out.append(Page(K, slug, html, url, "login_wall", lang=lang, note=note, near_miss=near, status=status))

    s = SITES["aurora"]
    add("bank-logon", render(s, "Log on to Online Banking | Aurora Bank",
        '<h1>Log on to Online Banking</h1>' + _pw_form("/logon", "Customer ID", "Passcode", "Log on", "Forgotten your details?",
        '<label class="remember"><input type="checkbox" name="remember"> Remember my customer ID</label>')
        + '<div class="security-note"><h2>Keeping you safe</h2><p>We will never ask you for your full passcode by phone or email.</p></div>'),
        "https://www.aurorabank.example/logon?next=/accounts/statements", "password form")

    s = SITES["cornerstone"]
    add("university-sso", render(s, "Sign in - Cornerstone University",
        '<div class="sso"><h1>Sign in with your university account</h1><p>This page is only available to current staff and students.</p>'
        '<a class="btn sso-btn" href="https://login.cornerstone-u.example/saml2/idp/SSO?SAMLRequest=' + tag("saml", 40) + '">Continue with Cornerstone ID</a>'
        '<p class="small">Visitors: see <a href="/about/visiting">visiting the campus</a>.</p></div>'),
        "https://www.cornerstone-u.example/intranet/hr/leave-policy", "SSO button only, no password field")

    s = SITES["railforum"]
    add("forum-logged-in-only", render(s, "Model Rail Forum - Login",
        '<div class="panel"><div class="inner"><h2 class="login-title">Login</h2><p>The board requires you to be registered and logged in to view this forum.</p>'
        + _pw_form("./ucp.php?mode=login", "Username:", "Password:", "Login", "I forgot my password",
                   '<label><input type="checkbox" name="autologin"> Remember me</label><label><input type="checkbox" name="viewonline"> Hide my online status this session</label>')
        + '</div></div><div class="panel"><h3>Register</h3><p>In order to login you must be registered. Registering takes only a few moments but gives you increased capabilities.</p>'
        '<a class="button" href="./ucp.php?mode=register">Register</a></div>'),
        "https://forum.modelrail.example/viewforum.php?f=31", "phpBB-style login-required")

    s = SITES["kitedocs"]
    add("saas-login-oauth", bare(
        "Log in · Kiteworks",
        '<div class="auth-card"><img src="/logo.svg" alt="Kiteworks" width="120"><h1>Welcome back</h1>'
        '<a class="oauth google" href="/auth/google">Continue with Google</a><a class="oauth github" href="/auth/github">Continue with GitHub</a>'
        '<div class="divider"><span>or</span></div>' + _pw_form("/session", "Work email", "Password", "Log in")
        + '<p>New to Kiteworks? <a href="/signup">Create an account</a></p></div>'),
        "https://app.kiteworks.example/login?return_to=%2Fprojects%2F219%2Fsettings", "SaaS app login")

    add("magic-link", bare(
        "Sign in to Notekeep",
        '<main class="signin"><h1>Sign in to Notekeep</h1><p>Enter your email and we\'ll send you a link to sign in. No password needed.</p>'
        '<form method="post" action="/auth/email"><input type="email" name="email" placeholder="you@company.com" required>'
        '<button>Email me a sign-in link</button></form><p class="fine">By continuing you agree to the Terms and Privacy Policy.</p></main>'),
        "https://notekeep.example/n/shared/8c1f2e", "email-only magic link, no password field")

    s = SITES["kuechenwerk"]
    add("recipes-de-anmelden", render(s, "Anmelden – Küchenwerk",
        '<div class="login-box"><h1>Anmelden</h1><p>Bitte melden Sie sich an, um Ihr Kochbuch zu sehen und Rezepte zu speichern.</p>'
        + _pw_form("/konto/login", "E-Mail-Adresse", "Passwort", "Anmelden", "Passwort vergessen?") +
        '<p>Noch kein Konto? <a href="/konto/registrieren">Jetzt kostenlos registrieren</a></p></div>'),
        "https://www.kuechenwerk.example/mein-kochbuch/sammlung/weihnachten", "German", lang="de")

    s = SITES["quotidien"]
    add("news-fr-connectez-vous", render(s, "Connexion - Le Quotidien du Port",
        '<div class="connexion"><h1>Connectez-vous pour continuer</h1><p>Cet espace est réservé aux lecteurs inscrits.</p>'
        + _pw_form("/compte/connexion", "Adresse e-mail", "Mot de passe", "Se connecter", "Mot de passe oublié ?") + "</div>"),
        "https://www.quotidien-port.example/espace-lecteurs/forum", "French", lang="fr")

    s = SITES["sierra"]
    add("news-es-iniciar-sesion", render(s, "Iniciar sesión | Diario Sierra",
        '<h1>Inicia sesión</h1><p>Accede con tu cuenta para participar en los comentarios.</p>'
        '<a class="btn-social" href="/auth/google">Entrar con Google</a><a class="btn-social" href="/auth/apple">Entrar con Apple</a>'
        + _pw_form("/usuarios/entrar", "Correo electrónico", "Contraseña", "Entrar", "¿Has olvidado tu contraseña?")),
        "https://www.diariosierra.example/comentarios/noticia-44821", "Spanish", lang="es")

    add("social-login-modal", bare(
        "Photos from Tidepool (@tidepool.studio)",
        '<div class="page blurred" aria-hidden="true"><div class="grid">' + "".join('<div class="tile"></div>' for _ in range(12)) + '</div></div>'
        '<div class="modal" role="dialog" aria-modal="true"><h2>See more from tidepool.studio</h2><p>Log in or sign up to see their photos and videos.</p>'
        '<a class="btn primary" href="/accounts/login/">Log in</a><a class="btn" href="/accounts/signup/">Sign up</a></div>',
        head='<meta property="og:title" content="Tidepool (@tidepool.studio)">'),
        "https://www.snapshare.example/tidepool.studio/", "social profile behind a login modal")

    add("wp-login", bare(
        "Log In ‹ Greenfield Allotments — WordPress",
        '<div id="login"><h1><a href="https://wordpress.org/">Powered by WordPress</a></h1>'
        '<form name="loginform" id="loginform" action="/wp-login.php" method="post"><p><label for="user_login">Username or Email Address</label>'
        '<input type="text" name="log" id="user_login" class="input" size="20" autocapitalize="off"></p><div class="user-pass-wrap"><label for="user_pass">Password</label>'
        '<input type="password" name="pwd" id="user_pass" class="input password-input" size="20"></div><p class="forgetmenot"><input name="rememberme" type="checkbox" id="rememberme" value="forever">'
        '<label for="rememberme">Remember Me</label></p><p class="submit"><input type="submit" name="wp-submit" id="wp-submit" class="button button-primary" value="Log In">'
        '<input type="hidden" name="redirect_to" value="/members/plot-rota/"></p></form><p id="nav"><a href="/wp-login.php?action=lostpassword">Lost your password?</a></p>'
        '<p id="backtoblog"><a href="/">&larr; Go to Greenfield Allotments</a></p></div>', body_attrs='class="login no-js login-action-login wp-core-ui"'),
        "https://www.greenfield-allotments.example/wp-login.php?redirect_to=%2Fmembers%2Fplot-rota%2F", "WordPress login screen")

    s = SITES["hemma"]
    add("wp-password-protected-post", render(s, "Skyddat: Medlemsbrev december – Hemma & Trädgård",
        '<article class="post"><h1 class="entry-title">Skyddat: Medlemsbrev december</h1><div class="entry-content">'
        '<form action="/wp-login.php?action=postpass" class="post-password-form" method="post"><p>Detta innehåll är lösenordsskyddat. '
        'För att se det, vänligen ange ditt lösenord nedan:</p><p><label for="pwbox-311">Lösenord: <input name="post_password" id="pwbox-311" type="password" size="20"></label> '
        '<input type="submit" name="Submit" value="Skicka"></p></form></div></article>'),
        "https://www.hemmatradgard.example/medlemsbrev-december/", "password-protected post (Swedish)", lang="sv")

    add("http-401", bare(
        "401 Authorization Required",
        '<h1>Authorization Required</h1><p>This server could not verify that you are authorized to access the document requested. '
        'Either you supplied the wrong credentials (e.g., bad password), or your browser doesn\'t understand how to supply the credentials required.</p>'),
        "https://staging.brightwater.example/reports/q3/", "basic-auth 401 page", status=401)

    s = SITES["fietsplein"]
    add("shop-nl-inloggen", render(s, "Inloggen | Fietsplein",
        '<h1>Log in om verder te gaan</h1><p>Je moet ingelogd zijn om je bestellingen en facturen te bekijken.</p>'
        + _pw_form("/account/inloggen", "E-mailadres", "Wachtwoord", "Inloggen", "Wachtwoord vergeten?")
        + '<h2>Nieuw bij Fietsplein?</h2><p>Maak een account aan en bestel sneller.</p><a href="/account/registreren">Account aanmaken</a>'),
        "https://www.fietsplein.example/account/bestellingen/2024-0043", "Dutch", lang="nl")

    s = SITES["cornerstone"]
    docs = [("Minutes of the Senate, 12 March", "PDF · 412 KB"), ("Estates strategy 2025–2030 (draft)", "DOCX · 1.1 MB"), ("Research ethics committee terms of reference", "PDF · 96 KB"),
            ("Staff survey results by faculty", "XLSX · 230 KB"), ("Budget assumptions 2025/26", "PDF · 300 KB"), ("Fire evacuation plan — Hollis Building", "PDF · 2.4 MB"),
            ("IT acceptable use policy v7", "PDF · 180 KB"), ("Timetabling principles", "PDF · 88 KB"), ("Examination board calendar", "PDF · 75 KB"),
            ("Workload allocation model guidance", "PDF · 140 KB"), ("Open access publishing fund", "PDF · 64 KB"), ("Sabbatical leave application form", "DOCX · 52 KB")]
    rows = "".join(f'<tr class="locked"><td><span class="icon-lock" aria-label="Locked"></span> {h(t)}</td><td>{h(m)}</td><td><a href="/login?next=/docs/{tag(t, 6)}">Sign in to download</a></td></tr>' for t, m in docs)
    add("members-doc-library", render(s, "Governance documents (members only) - Cornerstone University",
        '<h1>Governance document library</h1><div class="notice notice-locked"><p><strong>Members only.</strong> Please sign in with your staff account to open these documents.</p>'
        '<a class="btn" href="/login?next=/governance/library">Sign in</a></div><table class="doc-list"><thead><tr><th>Document</th><th>Format</th><th></th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"),
        "https://www.cornerstone-u.example/governance/library", "list of locked document titles", near=True)

    outline = [("Week 1", ["Why version control", "Installing the tools", "Your first commit"]), ("Week 2", ["Branches", "Merging", "Resolving conflicts"]),
               ("Week 3", ["Remotes", "Pull requests", "Code review etiquette"]), ("Week 4", ["Rebasing", "Bisect", "Hooks and automation"]),
               ("Week 5", ["Monorepos", "Large files", "Final project"])]
    body = "".join(f'<li class="module"><h3>{w}</h3>{ul(f"<span class=lesson-lock></span>{h(x)}" for x in ls)}</li>' for w, ls in outline)
    add("course-lesson-enroll", bare(
        "Lesson 3.2: Pull requests — Practical Git | Coursewell",
        '<header class="cw-header"><a href="/">Coursewell</a><nav><a href="/catalog">Catalog</a><a href="/business">For teams</a></nav><a href="/login">Sign in</a></header>'
        f'<div class="course-layout"><aside class="outline"><h2>Practical Git</h2><ol>{body}</ol></aside>'
        '<section class="lesson-gate"><h1>Enroll or sign in to access this lesson</h1><p>Join 48,210 learners. The first week is free.</p>'
        '<a class="btn" href="/checkout/practical-git">Enroll for free</a> <a href="/login?next=/learn/practical-git/3/2">Sign in</a></section></div>'),
        "https://www.coursewell.example/learn/practical-git/3/2", "long course outline beside the gate", near=True)

    s = SITES["wydarzenia"]
    add("events-pl-zaloguj", render(s, "Zaloguj się | Wydarzenia Kraków",
        '<h1>Zaloguj się</h1><p>Aby kupić bilet lub zobaczyć swoje rezerwacje, zaloguj się na swoje konto.</p>'
        + _pw_form("/konto/logowanie", "Adres e-mail", "Hasło", "Zaloguj", "Nie pamiętasz hasła?")),
        "https://www.wydarzenia-krakow.example/konto/rezerwacje", "Polish", lang="pl")

    s = SITES["reteviaggi"]
    add("travel-it-accedi", render(s, "Accedi - Rete Viaggi",
        '<div class="area-riservata"><h1>Area riservata</h1><p>Accedi per vedere le tue prenotazioni e scaricare i documenti di viaggio.</p>'
        + _pw_form("/utente/accedi", "Email", "Password", "Accedi", "Password dimenticata?") + "</div>"),
        "https://www.reteviaggi.example/utente/prenotazioni/RV-88231", "Italian", lang="it")
    return out


def _jsonld_paywalled(headline: str, lang: str, section: str, selector: str = ".paywalled-content") -> str:
    data = {"@context": "https://schema.org", "@type": "NewsArticle", "headline": headline, "inLanguage": lang,
            "isAccessibleForFree": False, "articleSection": section,
            "hasPart": {"@type": "WebPageElement", "isAccessibleForFree": False, "cssSelector": selector}}
    return f'<script type="application/ld+json">{json.dumps(data, ensure_ascii=False, sort_keys=True)}</script>'


def paywall_pages() -> list[Page]:
    K = "paywall"
    out: list[Page] = []

    def add(slug, html, url, note="", lang="en", near=False):
        out.append(Page(K, slug, html, url, "login_wall", lang=lang, note=note, near_miss=near))

    s = SITES["ledger"]
    t = "The bridge that nobody wanted to pay for"
    add("news-piano-offer", render(s, f"{t} | The Daily Ledger",
        f'<article class="story"><span class="kicker premium">Ledger+</span><h1>{t}</h1><p class="byline">By Marta Okafor</p>'
        '<p class="lede">For eleven years the footbridge over the Alder has been closed to everyone but pigeons. Three councils, two agencies '
        'and a railway company each say the repair bill belongs to someone else.</p>'
        '<div class="paywalled-content" style="display:none"></div><div id="tp-container" class="tp-container-inner">'
        '<div class="offer"><h2>Subscribe to continue reading</h2><p>Get unlimited access to the Ledger for £1 a week for 12 weeks.</p>'
        '<a class="btn" href="/subscribe?offer=intro">Subscribe now</a><p>Already a subscriber? <a href="/login">Log in</a></p></div></div></article>',
        head=_jsonld_paywalled(t, "en", "Local") + '<script src="https://cdn.tinypass.example/api/tinypass.min.js" async></script>'),
        "https://www.dailyledger.example/local/2024/02/alder-footbridge-repair-bill", "JSON-LD isAccessibleForFree false + offer box")

    t = "Why the night bus matters more than the new tram"
    add("news-metered", render(s, f"{t} | The Daily Ledger",
        f'<article class="story"><h1>{t}</h1><p>Shift workers, hospital cleaners and bakers rely on a route most councillors have never ridden.</p>'
        '<div class="meter-wall" role="dialog"><h2>You\'ve read all your free articles this month</h2><p>Become a subscriber to keep reading, '
        'or come back on 1 March for three more free stories.</p><ul class="plans"><li><strong>Digital</strong> £7.99 a month</li>'
        '<li><strong>Digital + print</strong> £18 a month</li></ul><a class="btn" href="/subscribe">See all offers</a></div></article>',
        head=_jsonld_paywalled(t, "en", "Opinion", ".story-body")),
        "https://www.dailyledger.example/opinion/2024/02/night-bus-routes", "metered wall")

    s = SITES["kuechenwerk"]
    t = "Die perfekte Gans: Schritt für Schritt zum Festbraten"
    add("de-plus-artikel", render(s, f"{t} | Küchenwerk Plus",
        f'<article><div class="badge badge-plus">K+</div><h1>{t}</h1><p class="teaser">Eine Gans zu braten ist keine Hexerei – wenn man ein paar Regeln '
        'kennt. Unsere Testküche hat sieben Methoden verglichen.</p><p>Am wichtigsten ist die Temperatur: Wer zu heiß startet, bekommt eine dunkle Haut '
        'und ein trockenes Inneres.</p><div class="paywall-fade"></div><div class="paywall"><h2>Dieser Artikel ist exklusiv für Abonnenten</h2>'
        '<p>Lesen Sie weiter mit Küchenwerk Plus: alle Rezepte, Videos und der Wochenplaner.</p><a class="btn btn-primary" href="/abo">Jetzt 4 Wochen für 1 € testen</a>'
        '<p>Bereits Abonnent? <a href="/login">Hier anmelden</a></p></div></article>',
        head=_jsonld_paywalled(t, "de", "Festtage")),
        "https://www.kuechenwerk.example/plus/gans-braten-anleitung", "German plus article", lang="de")

    s = SITES["quotidien"]
    t = "Pêche : les chalutiers face à la flambée du gazole"
    add("fr-reserve-abonnes", render(s, f"{t} - Le Quotidien du Port",
        f'<article class="article"><p class="abo-flag">Article réservé aux abonnés</p><h1>{t}</h1><p class="chapo">Au port, plusieurs armateurs '
        'envisagent de laisser leurs bateaux à quai cet hiver. Le prix du carburant a doublé en deux ans.</p>'
        '<div class="paywall-block"><p class="reste">Il vous reste 85 % de cet article à lire.</p><p>La suite est réservée aux abonnés.</p>'
        '<a class="bouton" href="/abonnement">Je m\'abonne</a><a href="/connexion">Déjà abonné ? Se connecter</a></div></article>',
        head=_jsonld_paywalled(t, "fr", "Économie")),
        "https://www.quotidien-port.example/economie/peche-chalutiers-gazole", "French", lang="fr")

    s = SITES["sierra"]
    t = "La sequía obliga a replantear los cultivos del valle"
    add("es-exclusivo", render(s, f"{t} | Diario Sierra",
        f'<article><span class="premium">Exclusivo suscriptores</span><h1>{t}</h1><p class="entradilla">Los agricultores del valle afrontan el tercer año '
        'sin lluvias suficientes y buscan alternativas al maíz.</p><div class="muro-pago"><h2>Este contenido es exclusivo para suscriptores</h2>'
        '<p>Suscríbete y accede sin límites a todas las noticias.</p><a href="/suscripcion">Suscríbete por 1 € el primer mes</a>'
        '<p>¿Ya eres suscriptor? <a href="/entrar">Inicia sesión</a></p></div></article>', head=_jsonld_paywalled(t, "es", "Local")),
        "https://www.diariosierra.example/local/sequia-cultivos-valle.html", "Spanish", lang="es")

    s = SITES["reteviaggi"]
    t = "Dolomiti d'inverno: i rifugi aperti tutto l'anno"
    add("it-riservato", render(s, f"{t} - Rete Viaggi",
        f'<article><h1>{t}</h1><p>Non tutti i rifugi chiudono con la prima neve. Ecco dove dormire in quota anche a gennaio.</p>'
        '<div class="contenuto-riservato"><p><strong>Contenuto riservato agli abbonati</strong></p><p>Abbonati a Rete Viaggi Premium per leggere la guida completa '
        'con mappe e prezzi aggiornati.</p><a class="btn btn-primary" href="/premium">Abbonati</a> <a href="/accedi">Accedi</a></div></article>',
        head=_jsonld_paywalled(t, "it", "Montagna")),
        "https://www.reteviaggi.example/guide/dolomiti-rifugi-inverno", "Italian", lang="it")

    s = SITES["fietsplein"]
    t = "Test: acht e-bikes voor woon-werkverkeer"
    add("nl-premium", render(s, f"{t} | Fietsplein Magazine",
        f'<article><h1>{t}</h1><p>We reden acht weken lang met acht e-bikes naar kantoor. Eén ding viel meteen op: de accu is niet alles.</p>'
        '<aside class="premium-gate"><h2>Dit is een premium artikel</h2><p>Word lid van Fietsplein Plus en lees alle tests en reviews.</p>'
        '<a href="/plus">Word lid</a> · <a href="/inloggen">Inloggen</a></aside></article>', head=_jsonld_paywalled(t, "nl", "Tests")),
        "https://www.fietsplein.example/magazine/test-e-bikes-woon-werk", "Dutch", lang="nl")

    s = SITES["saude"]
    t = "Colesterol alto: o que muda com a nova diretriz"
    add("pt-assinantes", render(s, f"{t} - Portal Saúde",
        f'<article><h1>{t}</h1><p class="linha-fina">Metas de LDL ficaram mais rígidas para pacientes de alto risco.</p>'
        '<div class="paywall"><p>Conteúdo exclusivo para assinantes.</p><a href="/assine">Assine a partir de R$ 1,90</a><p>Já é assinante? <a href="/entrar">Entre</a></p></div></article>',
        head=_jsonld_paywalled(t, "pt", "Doenças")),
        "https://www.portalsaude.example/doencas/colesterol-nova-diretriz", "Portuguese", lang="pt")

    add("substack-like-paid", bare(
        "The pricing post I was scared to write - Margins & Mistakes",
        '<div class="post-header"><h1 class="post-title">The pricing post I was scared to write</h1><h3 class="subtitle">What happened when I tripled my rates</h3>'
        '<div class="meta">Oct 3 · Paid</div></div><div class="available-content"><p>Last spring I did something every freelancer forum told me not to do.</p></div>'
        '<div class="paywall"><h2>This post is for paid subscribers</h2><a class="button primary" href="/subscribe">Subscribe</a>'
        '<p>Already a paid subscriber? <a href="/sign-in">Sign in</a></p></div>',
        head='<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"The pricing post I was scared to write",'
             '"isAccessibleForFree":false}</script>'),
        "https://margins.newsletter.example/p/the-pricing-post", "newsletter platform paid post")

    add("journal-abstract-purchase", bare(
        "Sediment transport in braided rivers under variable discharge | Journal of Fluvial Processes",
        '<header class="journal"><a href="/">Journal of Fluvial Processes</a></header><article class="article-page"><h1>Sediment transport in braided rivers under variable discharge</h1>'
        '<p class="authors">R. Lindgren, A. Moyo, K. Tanaka</p><section class="abstract"><h2>Abstract</h2><p>Braided rivers rework their beds continuously. Using '
        'flume experiments at three discharge regimes we measured bedload flux and channel switching frequency. Flux varied non-linearly with discharge, '
        'and switching was concentrated in short high-flow pulses. We propose a simple threshold model that reproduces both observations within 15%.</p></section>'
        '<div class="access-box"><h2>Access options</h2><ul><li>Buy article PDF — $39.95</li><li>Rent for 48 hours — $6.99</li></ul>'
        '<a href="/action/ssostart">Access through your institution</a> <a href="/action/showLogin">Log in</a></div></article>',
        head='<meta name="citation_title" content="Sediment transport in braided rivers under variable discharge">'),
        "https://journals.fluvial.example/doi/10.5555/jfp.2023.0412", "abstract only + purchase box", near=True)

    add("registration-wall", bare(
        "How to negotiate a lease renewal | SmallBiz Daily",
        '<nav class="top"><a href="/">SmallBiz Daily</a> <a href="/finance">Finance</a> <a href="/hr">HR</a> <a href="/legal">Legal</a></nav>'
        '<article><h1>How to negotiate a lease renewal</h1><p>Your lease is up in six months. Start now.</p><div class="regwall">'
        '<h2>Register for free to keep reading</h2><p>Create a free account to read 10 articles a month and get our weekly newsletter.</p>'
        '<form action="/register"><input type="email" name="email" placeholder="Work email"><button>Continue</button></form>'
        '<p>Have an account? <a href="/login">Sign in</a></p></div></article>'),
        "https://www.smallbizdaily.example/legal/negotiate-lease-renewal", "free registration wall")

    add("recipe-premium-unlock", bare(
        "Miso-glazed aubergine | Panhandle Kitchen",
        '<article class="recipe"><h1>Miso-glazed aubergine</h1><div class="recipe-meta"><span>Serves 4</span><span>40 min</span></div>'
        '<div class="locked-recipe"><div class="blur">Ingredients · Method</div><h2>Unlock this recipe with Premium</h2><p>Try Panhandle Premium free for 14 days. '
        'Cancel anytime.</p><a class="cta" href="/premium/trial">Start free trial</a></div></article>',
        head='<script type="application/ld+json">{"@context":"https://schema.org","@type":"Recipe","name":"Miso-glazed aubergine","isAccessibleForFree":"False"}</script>'),
        "https://www.panhandlekitchen.example/recipes/miso-glazed-aubergine", "recipe locked, isAccessibleForFree as a string")

    s = SITES["wydarzenia"]
    t = "Kulisy remontu Teatru Słowackiego"
    add("pl-tylko-dla-subskrybentow", render(s, f"{t} | Wydarzenia Kraków",
        f'<article><h1>{t}</h1><p>Po dwóch latach prac scena wraca do życia. Rozmawiamy z konserwatorami.</p><div class="paywall">'
        '<h2>Treść dostępna tylko dla subskrybentów</h2><p>Wykup dostęp, aby przeczytać cały artykuł.</p><a href="/subskrypcja">Kup subskrypcję</a></div></article>',
        head=_jsonld_paywalled(t, "pl", "Teatr")),
        "https://www.wydarzenia-krakow.example/teatr/kulisy-remontu", "Polish", lang="pl")

    s = SITES["ledger"]
    t = "The long fight over the old gasworks site"
    paras = ("When the gasworks closed in 1971 the town got a fenced field, a rumour of buried tar and a forty-year argument about who should clean it.",
             "Developers have come and gone. One plan promised four hundred homes; another a supermarket and a car park the size of two football pitches.",
             "Residents who grew up next to the fence remember the smell on hot days and the warning signs that faded year by year until nobody could read them.",
             "Last month the borough finally published the soil survey it commissioned in 2019. The findings are less alarming than many feared, and more expensive.")
    add("news-long-lede", render(s, f"{t} | The Daily Ledger",
        f'<article class="story"><h1>{t}</h1>' + "".join(f"<p>{p}</p>" for p in paras) +
        '<div class="paywalled-content"></div><div class="tp-modal"><h2>Continue reading with a subscription</h2><p>Ledger+ from £1 a week.</p>'
        '<a href="/subscribe">Subscribe</a> <a href="/login">Log in</a></div></article>', head=_jsonld_paywalled(t, "en", "Local")),
        "https://www.dailyledger.example/local/2024/01/gasworks-site-soil-survey", "four free paragraphs before the wall", near=True)

    add("trade-upgrade-plan", bare(
        "Q3 freight rate outlook — premium analysis | Cargo Signals",
        '<div class="app"><aside class="menu"><a href="/dashboard">Dashboard</a><a href="/rates">Rates</a><a href="/analysis">Analysis</a></aside>'
        '<main><h1>Q3 freight rate outlook</h1><p class="summary">Spot rates on Asia–Europe lanes.</p><div class="upgrade-gate"><h2>Premium content</h2>'
        '<p>Upgrade to Pro to read full analyses, download data and set alerts.</p><a class="btn" href="/billing/upgrade">Upgrade your plan</a></div></main></div>',
        head='<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","headline":"Q3 freight rate outlook","isAccessibleForFree":false,'
             '"hasPart":{"@type":"WebPageElement","isAccessibleForFree":false,"cssSelector":".analysis-body"}}</script>'),
        "https://app.cargosignals.example/analysis/q3-freight-outlook", "B2B upgrade gate")
    return out
