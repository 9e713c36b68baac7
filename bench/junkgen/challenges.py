"""Bot challenges and WAF blocks of several vendors (markup written for this corpus; the vendor
markers are the script paths and variable names such pages are known to carry)."""

from __future__ import annotations

from bench.junkgen.base import Page
from bench.junkgen.chrome import bare, h, tag

K = "bot_challenge"


def pages() -> list[Page]:
    out: list[Page] = []

    def add(slug, html, url, status, vendor, note="", lang="en", headers=None, near=False):
        out.append(Page(K, slug, html, url, "bot_challenge", status=status, lang=lang, note=f"{vendor}: {note}".rstrip(": "),
                        headers=headers or {}, near_miss=near))

    ray = tag("ray1", 16)
    add("cloudflare-js-challenge", bare(
        "Just a moment...",
        '<div class="main-wrapper" role="main"><div class="main-content"><h1 class="zone-name-title h1">www.vintagecams.example</h1>'
        '<h2 class="h2" id="challenge-running">Checking if the site connection is secure</h2><noscript><div class="h2"><span id="challenge-error-text">'
        'Enable JavaScript and cookies to continue</span></div></noscript><div id="challenge-body-text" class="core-msg spacer">www.vintagecams.example needs to '
        'review the security of your connection before proceeding.</div></div></div>'
        f'<script>(function(){{window._cf_chl_opt={{cvId: \'3\',cZone: "www.vintagecams.example",cType: \'managed\',cRay: \'{ray}\',cH: \'{tag("cfh", 40)}\'}};'
        f'var a=document.createElement(\'script\');a.src=\'/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray={ray}\';document.getElementsByTagName(\'head\')[0].appendChild(a);}}());</script>'
        f'<div class="footer"><div class="footer-inner"><div class="text-center">Ray ID: <code>{ray}</code></div></div></div>',
        head='<meta http-equiv="refresh" content="390"><meta name="robots" content="noindex,nofollow">'),
        "https://www.vintagecams.example/listing/leica-m3-1956", 403, "cloudflare", "managed JS challenge",
        headers={"cf-mitigated": "challenge", "server": "cloudflare"})

    ray = tag("ray2", 16)
    add("cloudflare-turnstile", bare(
        "Just a moment...",
        '<div class="main-wrapper"><h1>shop.teacaddy.example</h1><p>Verify you are human by completing the action below.</p>'
        '<div id="turnstile-wrapper" class="cf-turnstile" data-sitekey="0x4AAAA' + tag("ts", 14) + '"></div>'
        '<p>shop.teacaddy.example needs to review the security of your connection before proceeding.</p></div>'
        f'<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1?ray={ray}"></script>'
        f'<footer>Performance &amp; security by Cloudflare · Ray ID: {ray}</footer>'),
        "https://shop.teacaddy.example/collections/oolong", 403, "cloudflare", "Turnstile managed challenge", headers={"cf-mitigated": "challenge"})

    ray = tag("ray3", 16)
    add("cloudflare-blocked", bare(
        "Attention Required! | Cloudflare",
        '<div id="cf-wrapper"><div id="cf-error-details" class="cf-error-details-wrapper"><div class="cf-wrapper cf-header cf-error-overview">'
        '<h1 data-translate="block_headline">Sorry, you have been blocked</h1><h2 class="cf-subheadline">You are unable to access <span>forum.retrobikes.example</span></h2></div>'
        '<div class="cf-section cf-wrapper"><div class="cf-columns two"><div class="cf-column"><h2 data-translate="blocked_why_headline">Why have I been blocked?</h2>'
        '<p>This website is using a security service to protect itself from online attacks. The action you just performed triggered the security solution.</p></div>'
        '<div class="cf-column"><h2 data-translate="blocked_resolve_headline">What can I do to resolve this?</h2><p>You can email the site owner to let them know you were blocked. '
        'Please include what you were doing when this page came up and the Cloudflare Ray ID found at the bottom of this page.</p></div></div></div>'
        f'<div class="cf-error-footer cf-wrapper"><p>Cloudflare Ray ID: <strong>{ray}</strong> &bull; Your IP: <span>192.0.2.44</span> &bull; Performance &amp; security by Cloudflare</p></div></div></div>'),
        "https://forum.retrobikes.example/t/restoring-a-1978-frame/2231", 403, "cloudflare", "WAF block page")

    add("cloudflare-1020", bare(
        "Access denied | www.lettershop.example used Cloudflare to restrict access",
        '<div id="cf-wrapper"><div class="cf-alert cf-alert-error cf-cookie-error" id="cookie-alert">Please enable cookies.</div>'
        '<div id="cf-error-details"><h1><span class="cf-error-type">Error</span> <span class="cf-error-code">1020</span></h1>'
        '<h2 class="cf-subheadline">Access denied</h2><section><h2>What happened?</h2><p>This website is using a security service to protect itself from online attacks.</p></section>'
        f'<p>Ray ID: {tag("ray4", 16)}</p></div></div>'),
        "https://www.lettershop.example/typefaces/grotesk-no-9", 403, "cloudflare", "error 1020")

    add("cloudflare-fr", bare(
        "Un instant…",
        '<div class="main-wrapper"><h1>www.brocante-en-ligne.example</h1><h2 id="challenge-running">Vérification que vous êtes un humain. Cela peut prendre quelques secondes.</h2>'
        '<noscript>Activez JavaScript et les cookies pour continuer</noscript></div>'
        f'<script>window._cf_chl_opt={{cType:"managed",cRay:"{tag("ray5", 16)}",cLang:"fr"}};</script>'
        f'<script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray={tag("ray5", 16)}&amp;lang=fr"></script>', lang="fr"),
        "https://www.brocante-en-ligne.example/annonces/commode-louis-xv", 403, "cloudflare", "French localisation", lang="fr")

    ref = f"18.{tag('ak1', 8)}.1716{tag('ak2', 6)}.{tag('ak3', 7)}"
    add("akamai-access-denied", bare(
        "Access Denied",
        '<h1>Access Denied</h1>\n\nYou don\'t have permission to access "http&#58;&#47;&#47;www&#46;megastore&#46;example&#47;p&#47;tv&#45;55&#45;oled&#46;html" on this server.<p>\n'
        f'Reference&#32;&#35;{ref}\n<p>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;{ref}</p>'),
        "https://www.megastore.example/p/tv-55-oled.html", 403, "akamai", "edge deny with reference number", headers={"server": "AkamaiGHost"})

    add("akamai-bm-interstitial", bare(
        "Please wait",
        '<div class="sec-container"><div class="sec-text"><h1>Please wait while we verify your browser</h1>'
        '<p>This should only take a few seconds.</p></div><div id="sec-if-cpt-container" class="sec-if-cpt" style="display:none"></div></div>'
        f'<script type="text/javascript" src="/akam/13/{tag("akbm", 8)}" defer></script>'
        f'<script>var chlgeId="{tag("akch", 24)}";var bm_verify="{tag("akv", 32)}";document.cookie="_abck={tag("abck", 48)}~-1~;path=/";</script>'),
        "https://www.airlinefares.example/booking/select?from=LHR&to=JFK", 200, "akamai", "Bot Manager interstitial served with 200")

    add("datadome-captcha", bare(
        "classifieds-hub.example",
        f'<script data-cfasync="false">var dd={{\'rt\':\'c\',\'cid\':\'AHrlqAAAAAMA{tag("ddc", 12)}\',\'hsh\':\'{tag("ddh", 30).upper()}\',\'t\':\'fe\','
        f'\'s\':{int(tag("dds", 4), 16)},\'e\':\'{tag("dde", 40)}\',\'host\':\'geo.captcha-delivery.com\',\'cookie\':\'{tag("ddk", 60)}\'}}</script>'
        '<script data-cfasync="false" src="https://ct.captcha-delivery.com/c.js"></script>',
        head='<style>#cmsg{animation: A 1.5s;}@keyframes A{0%{opacity:0;}99%{opacity:0;}100%{opacity:1;}}</style>'),
        "https://www.classifieds-hub.example/annonce/velo-route-carbone-51", 403, "datadome", "captcha iframe bootstrap, nearly no text",
        headers={"x-datadome": "protected"})

    add("datadome-interstitial-de", bare(
        "ticketwelt.example",
        '<p id="cmsg">Bitte aktivieren Sie JS und deaktivieren Sie jeglichen Werbeblocker</p>'
        f'<script>var dd={{\'rt\':\'i\',\'cid\':\'{tag("ddi", 30)}\',\'hsh\':\'{tag("ddi2", 30).upper()}\',\'host\':\'geo.captcha-delivery.com\'}}</script>'
        '<script src="https://ct.captcha-delivery.com/i.js"></script>', lang="de"),
        "https://www.ticketwelt.example/konzert/berlin-philharmonie-2024-12-08", 403, "datadome", "interstitial, German message", lang="de")

    appid = "PX" + tag("pxa", 8)
    add("perimeterx-press-hold", bare(
        "Access to this page has been denied",
        '<div class="container"><h1>Before we continue…</h1><p>Press &amp; Hold to confirm you are<br>a human (and not a bot).</p>'
        '<div id="px-captcha"></div><p class="ref">Reference ID ' + tag("pxr", 8) + "-" + tag("pxr2", 4) + '-11ef-' + tag("pxr3", 4) + '</p></div>'
        f'<script>window._pxAppId=\'{appid}\';window._pxJsClientSrc=\'/{appid[2:]}/init.js\';window._pxFirstPartyEnabled=true;'
        f'window._pxHostUrl=\'/{appid[2:]}/xhr\';window._pxreCaptchaTheme=\'light\';</script><script src="/{appid[2:]}/captcha/captcha.js?a=c&amp;m=0"></script>'),
        "https://www.sneakerdrop.example/release/air-court-96-og", 403, "perimeterx", "press-and-hold challenge")

    add("human-block-plain", bare(
        "Access Denied",
        '<div class="px-block"><h1>Access to this page has been denied</h1><p>We believe you are using automation tools to browse the website.</p>'
        '<p>This may happen as a result of the following:</p><ul><li>JavaScript is disabled or blocked by an extension (ad blockers for example)</li>'
        '<li>Your browser does not support cookies</li></ul><p>Please make sure that JavaScript and cookies are enabled on your browser and that you are not blocking them from loading.</p>'
        f'<p>Reference ID: #{tag("hum", 8)}-{tag("hum2", 4)}</p></div><script>window._pxAppId="PX{tag("humapp", 8)}";</script>'),
        "https://www.realty-listings.example/homes/for-sale/portland-or", 403, "perimeterx", "HUMAN block text")

    add("incapsula-iframe", bare(
        "",
        '<meta name="ROBOTS" content="NOINDEX, NOFOLLOW"><meta http-equiv="cache-control" content="max-age=0">'
        f'<iframe id="main-iframe" src="/_Incapsula_Resource?SWUDNSAI=31&amp;xinfo=8-{int(tag("inc", 6), 16)}-0%200NNN%20RT%28{tag("inc2", 10)}%20123%29&amp;incident_id={int(tag("inc3", 8), 16)}-{int(tag("inc4", 10), 16)}&amp;edet=15&amp;cinfo=04000000" '
        'frameborder=0 width="100%" height="100%" marginheight="0px" marginwidth="0px">Request unsuccessful. Incapsula incident ID: '
        f'{int(tag("inc3", 8), 16)}-{int(tag("inc4", 10), 16)}</iframe>'),
        "https://www.insurer-quotes.example/car-insurance/quote/start", 200, "imperva", "classic Incapsula iframe served with 200")

    add("imperva-pardon", bare(
        "Pardon Our Interruption",
        '<div class="container"><h1>Pardon Our Interruption</h1><p>As you were browsing something about your browser made us think you were a bot. '
        'There are a few reasons this might happen:</p><ul><li>You\'re a power user moving through this website with super-human speed.</li>'
        '<li>You\'ve disabled cookies in your web browser.</li><li>A third-party browser plugin, such as Ghostery or NoScript, is preventing JavaScript from running.</li></ul>'
        '<p>To regain access, please make sure that cookies and JavaScript are enabled before reloading the page.</p></div>'
        f'<script src="/_Incapsula_Resource?SWJIYLWA={tag("swj", 32)}&amp;ns=1&amp;cb={int(tag("cb", 8), 16)}" async></script>'),
        "https://www.concert-tix.example/event/0F005C4A9B7E1B23", 403, "imperva", "Pardon Our Interruption")

    add("aws-waf-challenge", bare(
        "",
        '<script>window.awsWafCookieDomainList = [];window.gokuProps = {"key":"' + tag("goku", 44) + '","iv":"' + tag("gokuiv", 16) + '","context":"' + tag("gctx", 80) + '"};</script>'
        f'<script src="https://{tag("awsw", 12)}.{tag("awsw2", 12)}.us-east-1.token.awswaf.com/{tag("awsw", 12)}/{tag("awsw3", 12)}/challenge.js"></script>'
        '<div id="challenge-container"></div><script>AwsWafIntegration.saveReferrer();AwsWafIntegration.checkForceRefresh().then((forceRefresh) => {'
        'if (forceRefresh) {AwsWafIntegration.forceRefreshToken().then(() => {window.location.reload(true);});} else {AwsWafIntegration.getToken().then(() => '
        '{window.location.reload(true);});}});</script><noscript><h1>JavaScript is disabled</h1>In order to continue, you need to verify that you\'re not a robot by '
        'solving a CAPTCHA puzzle. The CAPTCHA puzzle requires JavaScript. Enable JavaScript and then reload the page.</noscript>'),
        "https://www.grocerydash.example/aisle/bakery", 202, "aws_waf", "silent challenge with status 202", headers={"x-amzn-waf-action": "challenge"})

    add("aws-waf-captcha", bare(
        "Human Verification",
        '<div id="captcha-container"><h1>Let\'s confirm you are human</h1><p>Complete the security check before continuing. This step verifies that you are not a bot, which helps to protect your account and prevent spam.</p></div>'
        f'<script type="text/javascript" src="https://{tag("awc", 12)}.edge.sdk.awswaf.com/{tag("awc", 12)}/{tag("awc2", 12)}/captcha.js"></script>'
        '<script>AwsWafCaptcha.renderCaptcha(document.getElementById("captcha-container"), {apiKey: "' + tag("awk", 40) + '", onSuccess: function(){location.reload()}});</script>'),
        "https://www.grocerydash.example/account/orders", 405, "aws_waf", "CAPTCHA action, status 405")

    add("hcaptcha-interstitial", bare(
        "Security check | PixelBoard",
        '<main class="check"><img src="/static/logo.svg" alt="PixelBoard" width="96"><h1>One more step</h1><p>Please complete the security check to access pixelboard.example</p>'
        '<form id="challenge-form" action="/__verify" method="POST"><div class="h-captcha" data-sitekey="' + tag("hcs", 8) + '-' + tag("hcs2", 4) + '-' + tag("hcs3", 4) + '"></div>'
        '<input type="hidden" name="next" value="/boards/retro-games"><button type="submit">Continue</button></form></main>',
        head='<script src="https://js.hcaptcha.com/1/api.js" async defer></script>'),
        "https://pixelboard.example/boards/retro-games", 200, "hcaptcha", "site-run hCaptcha gate with 200")

    add("recaptcha-unusual-traffic", bare(
        "Unusual traffic",
        '<div style="max-width:560px;margin:40px auto;font-family:arial,sans-serif"><h1 style="font-size:20px">Our systems have detected unusual traffic from your computer network</h1>'
        '<p>This page checks to see if it\'s really you sending the requests, and not a robot.</p>'
        '<form id="captcha-form" action="/sorry/index" method="post"><div id="recaptcha" class="g-recaptcha" data-sitekey="6Lc' + tag("rc", 37) + '" data-callback="submitCallback"></div>'
        '<input type="hidden" name="continue" value="https://maps.routefinder.example/search?q=cafes"></form>'
        f'<p style="font-size:13px">IP address: 198.51.100.23<br>Time: 2024-03-02T10:15:44Z<br>URL: https://maps.routefinder.example/search?q=cafes</p></div>',
        head='<script src="https://www.google.com/recaptcha/api.js" async defer></script>'),
        "https://maps.routefinder.example/sorry/index?continue=%2Fsearch%3Fq%3Dcafes", 429, "recaptcha", "unusual-traffic page with reCAPTCHA")

    add("sucuri-firewall", bare(
        "Sucuri WebSite Firewall - Access Denied",
        '<div id="main-container"><div id="title"><h1>Access Denied - Sucuri Website Firewall</h1></div><div id="subtitle">'
        '<p>If you are the site owner (or you manage this site), please whitelist your IP or if you think this block is an error please open a support ticket and make sure to include the block details (displayed in the box below), so we can assist you in troubleshooting the issue.</p></div>'
        '<table class="block-details"><tr><td>Your IP:</td><td>203.0.113.77</td></tr><tr><td>URL:</td><td>www.craftbeer-club.example/events</td></tr>'
        '<tr><td>Block reason:</td><td>Access from your Country was disabled by the administrator.</td></tr><tr><td>Block ID:</td><td>GEO01</td></tr></table></div>'),
        "https://www.craftbeer-club.example/events", 403, "sucuri", "Sucuri block page (vendor the detector may not know)", headers={"server": "Sucuri/Cloudproxy"})

    add("kasada-empty", bare(
        "",
        f'<script>window.KPSDK={{}};KPSDK.now=typeof performance!==\'undefined\'&&performance.now?performance.now.bind(performance):Date.now.bind(Date);KPSDK.start=KPSDK.now();</script>'
        f'<script src="/{tag("ksd1", 8)}-{tag("ksd2", 4)}-{tag("ksd3", 4)}-{tag("ksd4", 4)}-{tag("ksd5", 12)}/{tag("ksd6", 8)}-{tag("ksd7", 4)}-{tag("ksd8", 4)}-{tag("ksd9", 4)}-{tag("ksda", 12)}/ips.js?tkrm_alpekz_s1.3=0EOFSk"></script>'),
        "https://www.betting-odds.example/football/premier-league", 429, "kasada", "empty body + ips.js, status 429")

    add("ddos-guard-checking", bare(
        "DDoS-Guard",
        '<div class="content"><h1>Checking your browser before accessing filehost.example</h1><p>This process is automatic. Your browser will redirect to your requested content shortly.</p>'
        '<p>Please allow up to 5 seconds…</p></div><script src="/.well-known/ddos-guard/check?context=free_splash"></script>'),
        "https://filehost.example/f/9a2c7e", 403, "ddos-guard", "browser check splash")

    add("f5-rejected", bare(
        "Request Rejected",
        f'The requested URL was rejected. Please consult with your administrator.<br><br>Your support ID is: {int(tag("f5", 12), 16)}<br><br>'
        '<a href="javascript:history.back();">[Go Back]</a>'),
        "https://portal.stateagency.example/benefits/apply", 200, "f5", "ASM rejection, 200, almost no text")

    add("vercel-checkpoint", bare(
        "Vercel Security Checkpoint",
        '<div class="container"><div class="spinner"></div><h1>We\'re verifying your browser</h1><p class="subtitle">Website owner? Click here to fix</p>'
        f'<noscript><p>Enable JavaScript to continue.</p></noscript><p class="footer">Vercel Security Checkpoint · <code>fra1::{tag("vc", 12)}</code></p></div>'
        '<script src="/.well-known/vercel/security/static/challenge.v2.min.js" async></script>'),
        "https://launchweek.startupkit.example/", 429, "vercel", "security checkpoint")

    add("cloudflare-de-einen-moment", bare(
        "Einen Moment bitte…",
        '<div class="main-wrapper"><h1>www.gebrauchtwagen-markt.example</h1><p>Bestätigen Sie, dass Sie ein Mensch sind, indem Sie die folgende Aktion ausführen.</p>'
        f'<div class="cf-turnstile"></div></div><script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray={tag("ray6", 16)}&amp;lang=de"></script>', lang="de"),
        "https://www.gebrauchtwagen-markt.example/angebote/kombi-diesel-2019", 403, "cloudflare", "German localisation", lang="de")

    add("rate-limit-captcha-200", bare(
        "Too many requests – Lyricsbase",
        '<div class="box"><h1>Slow down!</h1><p>We\'ve received too many requests from your connection. Please solve the captcha below to continue browsing lyrics.</p>'
        '<form method="post" action="/verify"><div class="g-recaptcha" data-sitekey="6Le' + tag("rl", 37) + '"></div><button>I\'m not a robot</button></form></div>',
        head='<script src="https://www.google.com/recaptcha/api.js"></script>'),
        "https://www.lyricsbase.example/song/harbour-lights", 200, "recaptcha", "rate-limit captcha with status 200")
    return out
