/*
 * ISO 4217 Table A.1, the codes current in November 2026: currencies, funds (BOV, CLF, USN…),
 * precious metals (XAU…), units and the test and "no currency" codes (XTS, XXX). Withdrawn codes
 * (HRK, SLL, ZWL, ANG, BGN, CUC…) are not current. Kept here, not read from the runtime's Intl:
 * Intl's list lags the standard (XCG, ZWG, VED) and keeps withdrawn codes.
 */
export const ISO_4217_CODES: ReadonlySet<string> = new Set(
  (
    "AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD " +
    "CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP " +
    "GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR " +
    "KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN " +
    "MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD " +
    "SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX " +
    "USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF " +
    "XPT XSU XTS XUA XXX YER ZAR ZMW ZWG"
  ).split(" "),
);
